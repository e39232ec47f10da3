import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A refresh by the newer cursor whose page lists posts bumped from further down among new ones:
/// they move up with them, in the page's order. When the page's first row the feed had held back
/// every item listed after it, the new posts never showed: the cursor moved past them.
@Suite(.limit(minutes: 2)) struct NewerPagesListingBumpedRowsTests: FeedRuleSuite {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// s1030…s1021 cached; three new posts, then `bumped` bumped: the newer page lists the bumped
    /// posts first. `hiding` s1023 first (a queued removal, then rejected) checks that it goes back
    /// in its place, under rows the page moved.
    @Test(arguments: [["s1024", "s1022"], ["s1029"], ["s1028", "s1021"]], [false, true])
    func bumpedPostsMoveUpWithTheNewOnes(bumped: [String], hiding: Bool) async throws {
        let server = TimelineModel(count: 30, pageSize: 5, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, refreshMode: .newerThanHead(maxPages: 2))
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        await feed.loadNextPage()
        if hiding {
            _ = try #require(try await feed.enqueue("hide", removing: "s1023", argument: Revision(revision: 4)))
        }
        server.publish(3)
        for id in bumped { server.bump(id) }
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        try await check(recorder, feed, "after the refresh")
        #expect(
            Array(await feed.snapshot.ids.prefix(3 + bumped.count))
                == Array(server.items.prefix(3 + bumped.count).map(\.id)))
        if hiding {
            #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
            await feed.waitUntilIdle()
            try await check(recorder, feed, "after the answer")
        }
        try await scrollToTheEnd(feed, "scroll", refreshingFirst: true)
        try await check(recorder, feed, "settled")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// s1017…s1001 cached, in a list ordered by activity; the server bumps s1015 and publishes
    /// twelve posts, and the top five rows are hidden by queued removals. The newer page lists the
    /// new posts and then s1015: it moved up, and the removals that named it as a neighbour (s1016
    /// below, s1014 above) name what stood around the place it left. Naming it still, s1016 went
    /// back next to s1015's new place or, with s1017 above it hidden too, nowhere: two rejected posts
    /// never showed again. Rejected in the queue's order or with s1017 and s1015 last, all five go
    /// back where the server lists them.
    @Test(arguments: [[], ["s1017", "s1015"]] as [Set<String>])
    func removalsNamingAHiddenPostTheNewerPageBumpsGoBackInOrder(answeredLast: Set<String>) async throws {
        let server = TimelineModel(count: 17, pageSize: 9, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: .keepGap, refreshMode: .newerThanHead(maxPages: 1),
            itemOrder: .byActivity)
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        await feed.loadNextPage()
        let run = ["s1017", "s1016", "s1015", "s1014", "s1013"]
        #expect(Array(await feed.snapshot.ids.prefix(5)) == run)
        server.bump("s1015")
        server.publish(12)
        for id in run {
            let kind = answeredLast.contains(id) ? "last" : "first"
            _ = try #require(try await feed.enqueue(kind, removing: id, argument: Revision(revision: 4)))
        }
        await feed.refresh()
        #expect(Set(run).isDisjoint(with: await feed.snapshot.ids), "the refresh showed items whose removals wait")
        let recorder = await SnapshotRecorder(feed)
        let sender = try test.store()
        await sender.outbox.register("first", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await sender.outbox.expectStatus("the first removals answered") { $0.count == answeredLast.count }
        await sender.outbox.register("last", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await sender.outbox.expectEmpty("every removal answered")
        await feed.waitUntilIdle()
        try await check(recorder, feed, "after the answers")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
        try await scrollToTheEnd(feed, "scroll", refreshingFirst: true)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }
}
