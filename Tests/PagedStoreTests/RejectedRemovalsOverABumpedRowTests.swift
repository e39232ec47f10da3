import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A run of queued removals on top, s1006…s1004 hidden over s1003 and s1002, while six posts are
/// published and the server bumps s1003, the row right under the run, above them: a refresh's
/// first page starts with s1003 and ends among the new posts, with a gap under it, and the run's
/// items stand in that gap. Rejected, they go back where the server lists them, never above the
/// page's rows, where the next pages, listing those rows without them, would prove them deleted.
@Suite(.limit(minutes: 2)) struct RejectedRemovalsOverABumpedRowTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// The server and the feed, the run hidden, the posts published and s1003 bumped when asked.
    private func runOnTop(
        _ run: [String], bumping: Bool, policy: FeedPolicy
    ) async throws -> (feed: Feed<Post>, server: TimelineModel) {
        let (feed, server, _) = try await test.refreshedTimeline(count: 6, policy: policy)
        #expect(await feed.snapshot.ids == ["s1006", "s1005", "s1004", "s1003", "s1002"])
        for id in run {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        server.publish(6)
        if bumping { server.bump("s1003") }
        return (feed, server)
    }

    /// The refresh's one fill of the gap ends on s1004, so the gap hangs under the run's items:
    /// rejected, they go back above it, where the fill listed them. Below it, the next fill,
    /// ending on s1002 without them, proved them deleted.
    @Test(arguments: [true, false]) func aRunListedLastByAFillGoesBackAboveTheGap(
        bumpingTheRowUnder: Bool
    )
        async throws
    {
        let run = bumpingTheRowUnder ? ["s1006", "s1005", "s1004"] : ["s1006", "s1005", "s1004", "s1003"]
        let (feed, server) = try await runOnTop(
            run, bumping: bumpingTheRowUnder,
            policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, autoFillGapPages: 1))
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == run.count)
        await feed.waitUntilIdle()
        try await ReferenceModelTests.check(recorder, feed, test, "after the answers")
        try await scrollToTheEnd(feed, "after the answers")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// No fill: the first page, s1003 then s1012…s1009, leaves the run out above s1003, where the
    /// removals placed it. Rejected, the items go back under the gap, above s1002, not above s1003.
    @Test func aRunTheFirstPageLeavesOutGoesBackUnderTheGap() async throws {
        let run = ["s1006", "s1005", "s1004"]
        let (feed, server) = try await runOnTop(
            run, bumping: true, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == run.count)
        await feed.waitUntilIdle()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == ["s1003", "s1012", "s1011", "s1010", "s1009", "s1006", "s1005", "s1004", "s1002"])
        #expect(snapshot.gaps.map(\.afterRow) == [4])
        try await ReferenceModelTests.check(recorder, feed, test, "after the answers")
        try await scrollToTheEnd(feed, "after the answers")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }
}
