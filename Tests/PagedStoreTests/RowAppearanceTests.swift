import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// `enqueueRowDidAppear`: a synchronous call from UIKit's data source methods whose rows reach the
/// feed in order.
@Suite(.limit(minutes: 3)) struct RowAppearanceTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func rowsEnqueuedSynchronouslyReachTheFeedInOrder() async throws {
        let server = ModelServer(.posts("p", 2_000), pageSize: 1_000)
        let policy = FeedPolicy(refreshOnOpen: .never, prefetchDistance: 0, windowSize: 40, firstScreenRows: 20)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        await feed.loadNextPage()
        #expect(await feed.snapshot.rows.count == 2_000)
        // A fast fling down, then back to the top: the last row reported is where the window must be.
        for row in stride(from: 100, to: 1_990, by: 3) { feed.enqueueRowDidAppear(row) }
        feed.enqueueRowDidAppear(7)
        await feed.appearancesHandled()
        let snapshot = await feed.snapshot
        #expect(snapshot.rows.loadedRange.contains(7), "the window is at \(snapshot.rows.loadedRange)")
        #expect(snapshot.rows[7]?.id == "p7")
    }

    @Test func anIndexPathMapsToItsFlatRow() async throws {
        let items: [Post] = .posts("a", 2, section: "A") + .posts("b", 3, section: "B")
        let feed = try test.feed(ModelServer(items, pageSize: 10).source)
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.row(at: IndexPath(indexes: [1, 2])) == 4)
        #expect(snapshot.row(at: IndexPath(indexes: [1, 3])) == nil)
        #expect(snapshot.row(at: IndexPath(indexes: [2, 0])) == nil)
        #expect(snapshot.row(at: snapshot.indexPath(ofRow: 3)) == 3)
    }
}
