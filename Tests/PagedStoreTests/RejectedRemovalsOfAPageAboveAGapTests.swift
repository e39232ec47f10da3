import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The user queues removals of a whole page, then a refresh lists those items again: the page is
/// written and its rows go again at once (the removals are pending), and under keepGap the page's
/// gap stays, with no row above it. When the server rejects the removals, the items have no known
/// side of that gap; put back on the wrong one, the gap's fill proved them deleted. They wait for
/// the page that lists them, and nothing is skipped.
@Suite(.limit(minutes: 2)) struct RejectedRemovalsOfAPageAboveAGapTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test(arguments: [FeedPolicy.GapPolicy.keepGap, .replace])
    func rejectedRemovalsOfTheWholeFirstPageSkipNothing(gapPolicy: FeedPolicy.GapPolicy) async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: gapPolicy))
        await feed.refresh()
        await feed.loadNextPage()
        for row in 0..<10 {
            _ = try #require(try await feed.enqueue("hide", removing: "p\(row)", argument: Revision(revision: 4)))
        }
        let recorder = await SnapshotRecorder(feed)
        // Another store's list of the feed follows the write as this one shows it.
        let otherFeed = try test.feed(server.source, policy: feed.policy, store: test.store())
        let other = await ObservedList(otherFeed)
        await feed.refresh()  // p0…p9 again, every one of them hidden by its removal
        #expect(Set(await feed.snapshot.ids).isDisjoint(with: (0..<10).map { "p\($0)" }), "hidden by the removals")
        try await ReferenceModelTests.check(recorder, feed, test, "the refresh: the file's gap shows")
        let shown = await feed.snapshot
        let followed = await other.firstSnapshot(within: .seconds(60)) {
            $0.ids == shown.ids && $0.gaps.map(\.afterRow) == shown.gaps.map(\.afterRow)
        }
        #expect(followed != nil, "the other store's list shows the rows and gaps this one does")

        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 10)
        try await scrollToTheEnd(feed, "after the rejections", refreshingFirst: true)
        try await ReferenceModelTests.check(recorder, feed, test, "after the scroll")
        #expect(await feed.snapshot.ids == (0..<30).map { "p\($0)" }, "every rejected removal's post is back, in order")
    }
}
