import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A queued removal names the rows around its item; a page that moves one of them elsewhere (a
/// post bumped to the top) leaves the item where it was in the server's list, next to the rows
/// around the moved row's old place. Rejected, the item goes back there. Named by the moved rows,
/// it went back among them on top, and the next refresh, listing them without it, proved it
/// deleted: a post the server still has, gone for good.
@Suite(.limit(minutes: 2)) struct RejectedRemovalsWhoseNeighboursMovedTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// s1023 hidden between s1024 and s1022; the server bumps `bumped` to the top in that order (s1024
    /// then s1022 leaves the two standing the other way round), and a refresh moves them there.
    /// Rejected, s1023 goes back under the post above it in the server's list (s1025 when s1024 moved).
    @Test(arguments: [["s1024", "s1022"], ["s1022", "s1024"], ["s1024"], ["s1022"]], [false, true])
    func aRemovalWhoseNeighboursWereBumpedGoesBackInItsPlace(bumped: [String], byPageNumber: Bool) async throws {
        let server = TimelineModel(count: 30, pageSize: 5, byPageNumber: byPageNumber, sectioned: false)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        await feed.loadNextPage()
        _ = try #require(try await feed.enqueue("hide", removing: "s1023", argument: Revision(revision: 4)))
        for id in bumped { server.bump(id) }
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        await feed.waitUntilIdle()
        let shown = await feed.snapshot.ids
        let serverIDs = server.items.map(\.id)
        let above = try #require(serverIDs.firstIndex(of: "s1023").map { serverIDs[$0 - 1] })
        #expect(shown.firstIndex(of: "s1023") == shown.firstIndex(of: above).map { $0 + 1 }, "shown \(shown)")
        try await ReferenceModelTests.check(recorder, feed, test, "after the answer")
        try await scrollToTheEnd(feed, "after the answer", refreshingFirst: true)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }
}
