import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// Rows whose content changed but whose identity did not are named by id beside their reloads, for
/// `reconfigureItems`, by every operation that changes an item in place.
@Suite(.limit(minutes: 3)) struct ReconfigureTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func aLocalUpdateNamesItsRowForReconfiguring() async throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        try await feed.update(Post(id: "p3", revision: 2))
        let change = await feed.snapshot.change
        #expect(change.reconfiguredIDs == ["p3"])
        #expect(change.reloadedRows == [IndexPath(indexes: [0, 3])])
    }

    @Test func aRefreshNamesTheChangedItemsOfItsOverlap() async throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        // New items on top of an unchanged order: the fast merge.
        server.items = [Post(id: "new")] + server.items.map { $0.id == "p1" ? Post(id: "p1", revision: 1) : $0 }
        await feed.refresh()
        #expect(await feed.snapshot.change.reconfiguredIDs == ["p1"])
        // A reordered head: the rewriting merge.
        var items = server.items
        items.swapAt(0, 4)
        items[2].revision = 5
        server.items = items
        await feed.refresh()
        let change = await feed.snapshot.change
        #expect(change.reconfiguredIDs == [items[2].id])
        #expect(Set(change.reconfiguredIDs).isSubset(of: await feed.snapshot.ids))
    }

    @Test func aRowThatChangesSectionIsStillReconfiguredByID() async throws {
        let server = ModelServer(.posts("a", 3, section: "A"), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        try await feed.update(Post(id: "a1", revision: 1, section: "B"))
        let change = await feed.snapshot.change
        #expect(change.reloadedRows.isEmpty, "the batch lists it as deleted and inserted")
        #expect(change.reconfiguredIDs == ["a1"])
    }
}
