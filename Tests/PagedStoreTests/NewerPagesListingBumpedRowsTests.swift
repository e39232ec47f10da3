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
}
