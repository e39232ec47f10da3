import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A list served by page number shifts down under new posts: a next page lists again rows the feed
/// has. Queued removals hidden across such shifts, all rejected, go back in the server's order and
/// take no other row with them.
@Suite(.limit(minutes: 2)) struct RejectedRemovalsOfAPageNumberedListTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// Rows hidden, new posts on top (`publishes`), refreshes and a next page, then every removal
    /// rejected in two batches. With no removals at all (`hiding` false) the same steps end in the
    /// server's list too.
    @Test(arguments: [[1, 3, 3], [2, 2, 2]], [true, false])
    func rejectedRemovalsGoBackInTheServersOrder(publishes: [Int], hiding: Bool) async throws {
        let server = TimelineModel(count: 30, pageSize: 5, byPageNumber: true, sectioned: false)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .replace))
        func hide(_ removals: [(String, String)]) async throws {
            guard hiding else { return }
            for (id, kind) in removals {
                _ = try #require(try await feed.enqueue(kind, removing: id, argument: Revision(revision: 4)))
            }
        }
        await feed.refresh()
        await feed.loadNextPage()
        let recorder = await SnapshotRecorder(feed)
        try await hide([("s1026", "b"), ("s1022", "b"), ("s1023", "a"), ("s1021", "b")])
        server.publish(publishes[0])
        try await hide([("s1030", "a"), ("s1029", "b")])
        await feed.refresh()
        try await hide([("s1024", "b")])
        server.publish(publishes[1])
        await feed.refresh()
        server.publish(publishes[2])
        await feed.loadNextPage()
        let sender = try test.store()
        await sender.outbox.register("a", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await sender.outbox.expectStatus("a answered") { $0.edits.allSatisfy { $0.kind != "a" } }
        await sender.outbox.register("b", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await sender.outbox.expectEmpty("all answered")
        await feed.waitUntilIdle()
        try await ReferenceModelTests.check(recorder, feed, test, "after the answers")
        try await scrollToTheEnd(feed, "after the answers", refreshingFirst: true, retryingFailures: true)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }
}
