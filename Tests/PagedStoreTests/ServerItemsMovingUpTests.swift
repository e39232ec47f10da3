import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// A row the server moves up (a thread bumped to the top by a new reply), from the second page or
/// from below a gap: the refresh that shows it there skips no server item, and scrolling to the end
/// still reaches every item once, in order.
@Suite(.limit(minutes: 3)) struct ServerItemsMovingUpTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A refresh whose page holds a row "bumped" from the second page to the top (a thread with a new
    /// reply): its change applies, and scrolling to the end shows every server item once, in order,
    /// the rows between the page's end and the bumped row's old place (p9…p14) among them
    /// (Architecture rule 3: only rows the server no longer lists *within the overlap* are deletions).
    /// It guarded against the rewrite of the head deleting those rows while the older cursor stayed below them.
    @Test func aRowBumpedToTheTopFromTheSecondPageSkipsNoServerItem() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.loadNextPage()
        #expect(await feed.snapshot.ids.count == 20)
        var items = server.items
        let bumped = items.remove(at: 15)
        server.items = [bumped] + items
        let before = await feed.snapshot
        await feed.refresh()
        let after = await feed.snapshot
        #expect(try BatchUpdate.apply(after.change, to: before.ids, new: after.ids) == after.ids)
        try await scrollToTheEnd(feed)
        let shown = await feed.snapshot.ids
        #expect(shown == server.items.map(\.id), "every server item, once, in order")
    }

    /// The same across a gap: a row from below a keepGap gap moves to the top, and scrolling to the
    /// end still shows every server item, the rows the gap stands for among them.
    /// It guarded against the rewrite deleting the gap with the head, so the gap's rows were never fetched.
    @Test func aRowBumpedFromBelowAGapKeepsTheGapsRowsFetchable() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        await feed.refresh()
        #expect(await feed.snapshot.gaps.count == 1)
        var items = server.items
        let bumped = items.remove(at: items.firstIndex { $0.id == "p0" }!)
        server.items = [bumped] + items
        await feed.refresh()
        try await scrollToTheEnd(feed)
        let shown = await feed.snapshot.ids
        #expect(shown == server.items.map(\.id), "n9…n14 were skipped with the gap")
    }
}
