import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The user removes every row on top (queued removals), and a keepGap refresh lists those items
/// again: none of them has a row to match, so the page is written on top with a gap below it. The
/// feed's newest cursor was read with that same page: as the gap's newer cursor it named the top of
/// the page above the gap, and a fill from the gap's bottom answered rows above the gap, "reached"
/// them and closed the gap, skipping every post inside it.
@Suite(.limit(minutes: 2)) struct GapUnderARelistedRemovedHeadTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func aGapUnderAPageThatListsTheRemovedHeadAgainSkipsNothing() async throws {
        let server = TimelineModel(count: 20, pageSize: 5, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { request in server.page(for: request) }
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()  // s1020…s1016
        server.publish(7)
        await feed.refresh()  // s1027…s1023, a gap (s1022, s1021), s1020…s1016
        let head = (1023...1027).reversed().map { "s\($0)" }
        #expect(Array(await feed.snapshot.ids.prefix(5)) == head)
        for id in head {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        await feed.refresh()  // lists the removed head again, with a gap below it
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == head.count)
        await feed.waitUntilIdle()
        // New posts on top, so that a fill from the gap's bottom with a cursor naming the page's top
        // answers rows the feed has above the gap.
        server.publish(3)
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        for _ in 0..<10 {
            guard let gap = await feed.snapshot.gaps.first else { break }
            await feed.loadGap(gap, from: gap.canFillFromBottom ? .bottom : .top)
        }
        try await scrollToTheEnd(feed, "after the fills")
        try await ReferenceModelTests.check(recorder, feed, test, "the fills")
        #expect(await feed.snapshot.ids == server.items.map(\.id), "no post of the gap is skipped")
    }
}
