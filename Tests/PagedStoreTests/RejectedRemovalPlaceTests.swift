import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Where a rejected removal puts its item back when the rows it was removed from are gone too:
/// next to the closest rows still shown on each side, whether those rows left for good (a removal
/// confirmed, an insert rolled back) or are themselves removed and pending.
@Suite(.limit()) struct RejectedRemovalPlaceTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A store with a feed of six posts, p0 to p5, refreshed.
    func openFeed() async throws -> (FeedStore, Feed<Post>) {
        try await test.openPosts(ModelServer(.posts("p", 6), pageSize: 10))
    }

    @Test func anItemWhoseNeighboursWereRemovedForGoodGoesBackBetweenTheClosestRowsLeft() async throws {
        let (store, feed) = try await openFeed()
        try await feed.enqueue("refuse", removing: "p3", argument: Revision(revision: 0))
        try await feed.enqueue("delete", removing: "p2", argument: Revision(revision: 0))
        try await feed.enqueue("delete", removing: "p4", argument: Revision(revision: 0))
        await store.outbox.register("delete", as: Revision.self) { _ in .confirmed }
        await store.outbox.waitFor { $0.count == 1 }
        await store.outbox.register("refuse", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await store.outbox.waitUntilEmpty()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == ["p0", "p1", "p3", "p5"])
        #expect(snapshot.change.insertedRows == [IndexPath(indexes: [0, 2])])
        #expect(try test.idsOnDisk() == ["p0", "p1", "p3", "p5"])
    }

    @Test func anItemWhoseNeighboursAreRemovedAndPendingGoesBackBetweenTheClosestRowsShown() async throws {
        let (store, feed) = try await openFeed()
        try await feed.enqueue("refuse", removing: "p3", argument: Revision(revision: 0))
        try await feed.enqueue("delete", removing: "p2", argument: Revision(revision: 0))
        try await feed.enqueue("delete", removing: "p4", argument: Revision(revision: 0))
        await store.outbox.register("refuse", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await store.outbox.waitFor { $0.count == 2 }
        #expect(await feed.snapshot.ids == ["p0", "p1", "p3", "p5"])

        await store.outbox.register("delete", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await store.outbox.waitUntilEmpty()
        #expect(Set(await feed.snapshot.ids) == Set((0..<6).map { "p\($0)" }), "every rejected removal is back")
    }

    /// p0's removal names p1 below it; then the app's model stops reading p1, whose row leaves the
    /// feed (the server still lists it). Rejected, p0 goes back above the row that was below p1,
    /// not nowhere: a refresh by the newer cursor never lists the top of the list again.
    @Test func anItemWhoseNeighbourNoLongerDecodesGoesBackNextToTheRowBeyondIt() async throws {
        let refused = RefusedIDs()
        let store = try test.store()
        let feed = try test.feed(ModelServer(.posts("p", 6), pageSize: 10).source, store: store, codec: refused.codec)
        await feed.refresh()
        try await feed.enqueue("refuse", removing: "p0", argument: Revision(revision: 0))
        refused.insert("p1")
        #expect(try await feed.enqueue("refuse", removing: "p1", argument: Revision(revision: 0)) == nil)
        #expect(await feed.snapshot.ids == ["p2", "p3", "p4", "p5"], "p1's row left as undecodable")
        await store.outbox.register("refuse", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await store.outbox.waitUntilEmpty()
        await feed.waitUntilIdle()
        #expect(await feed.snapshot.ids == ["p0", "p2", "p3", "p4", "p5"])
    }

    /// p0…p19 loaded from a server of p0…p29, pages of ten, and the removals of `hidden` queued.
    func loadTwoPagesAndHide(
        _ server: ModelServer, _ source: ScriptedSource<Post>, gapPolicy: FeedPolicy.GapPolicy, hidden: Range<Int>
    ) async throws -> Feed<Post> {
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: gapPolicy))
        await feed.refresh()
        await feed.loadNextPage()
        for index in hidden {
            _ = try #require(try await feed.enqueue("hide", removing: "p\(index)", argument: Revision(revision: 4)))
        }
        return feed
    }

    /// Every row hidden, then a refresh with nothing new: its page, and the next one the empty list
    /// loads, list only hidden items, which go again at once. Rejected, each goes back in the
    /// server's order, whatever the order of the answers: the items a page listed next to each other
    /// name each other.
    @Test(arguments: [FeedPolicy.GapPolicy.replace, .keepGap])
    func rejectedRemovalsOfPagesOfHiddenItemsGoBackInOrder(gapPolicy: FeedPolicy.GapPolicy) async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try await loadTwoPagesAndHide(server, server.source, gapPolicy: gapPolicy, hidden: 0..<20)
        await feed.refresh()
        #expect(await feed.snapshot.ids.isEmpty)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 20)
        await feed.waitUntilIdle()
        try await scrollToTheEnd(feed, "after the rejections")
        let shown = await feed.snapshot.ids
        #expect(shown == (0..<30).map { "p\($0)" }, "every post back, in order")
    }

    /// A page-numbered list shifted by ten posts on top: the next page lists p10…p19 again, every one
    /// of them hidden. Rejected, they go back in order between p9 and p15… as the page listed them.
    @Test func rejectedRemovalsOfANextPageOfHiddenItemsGoBackInOrder() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try await loadTwoPagesAndHide(server, server.pageNumberSource, gapPolicy: .replace, hidden: 5..<20)
        server.items = .posts("n", 10) + server.items
        await feed.loadNextPage()
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 15)
        await feed.waitUntilIdle()
        let shown = await feed.snapshot.ids.prefix(20)
        #expect(Array(shown) == (0..<20).map { "p\($0)" }, "every post back, in order")
    }

    @Test func anItemBetweenTwoRejectedInsertsGoesBackBetweenTheRowsAroundThem() async throws {
        let (store, feed) = try await openFeed()
        try await feed.enqueue("post", inserting: Post(id: "n1"), at: 2, argument: Revision(revision: 0))
        try await feed.enqueue("post", inserting: Post(id: "n2"), at: 4, argument: Revision(revision: 0))
        try await feed.enqueue("delete", removing: "p2", argument: Revision(revision: 0))
        #expect(await feed.snapshot.ids == ["p0", "p1", "n1", "n2", "p3", "p4", "p5"])
        await store.outbox.register("post", as: Revision.self) { _ in .rejected(reason: "HTTP 422") }
        await store.outbox.waitFor { $0.count == 1 }
        await store.outbox.register("delete", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await store.outbox.waitUntilEmpty()
        #expect(await feed.snapshot.ids == ["p0", "p1", "p2", "p3", "p4", "p5"])
    }
}
