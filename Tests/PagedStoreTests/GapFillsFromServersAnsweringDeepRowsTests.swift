import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Servers that answer a gap's fills with a row from deep below the gap, which moves up: the
/// fills stop, whether the pages cycle two cursors or repeat one.
@Suite(.limit(minutes: 3)) struct GapFillsFromServersAnsweringDeepRowsTests: FeedRuleSuite {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A lying server answering every fill of the gap (n0…n9, gap, p0…p9) with one deep row of the
    /// far side, cycling p5/p7 and cursors X/Y: each moves up once, then the pages repeat rows above
    /// the gap and end there, which proves nothing; the fills stop with `paginationLoop`, and every
    /// change applies.
    @Test func aServerAnsweringDeepRowsForeverStops() async throws {
        let (_, server, _) = try await test.timelineWithAGap()  // n0…n9, a gap, p0…p9
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let lying = ScriptedSource<Post> { request in
            switch request {
            case .olderThan("X"): Page(items: [Post(id: "p7")], olderCursor: "Y")
            case .olderThan: Page(items: [Post(id: "p5")], olderCursor: "X")
            default: server.page(for: request)
            }
        }
        let feed = try test.feed(lying, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        var fills = 0
        while let gap = await feed.snapshot.gaps.first, gap.state == .idle, fills < 40 {
            await feed.loadGap(gap)
            try await check(recorder, feed, "fill \(fills)")
            fills += 1
        }
        #expect(fills < 40, "40 fills of a gap and it neither closed nor failed")
        let state = await feed.snapshot.gaps.first?.state
        guard case .failed(let error) = state else {
            Issue.record("gap state \(String(describing: state))")
            return
        }
        #expect(error.kind == .paginationLoop)
    }

    /// The fill that reaches the limit of fills with nothing new is in the file when the fill
    /// stops: the feed shows it in the snapshot that reports the loop, so nothing is left for the
    /// feed to follow from the file afterwards (a later snapshot the app did not ask for).
    @Test func aFillStoppedAsALoopIsShownWithTheLoop() async throws {
        let (_, server, _) = try await test.timelineWithAGap()  // n0…n9, a gap, p0…p9
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, maxPagesWithoutNewItems: 2)
        let cycling = ScriptedSource<Post> { request in
            switch request {
            case .olderThan("X"): Page(items: [Post(id: "n9")], olderCursor: "Y")
            case .olderThan: Page(items: [Post(id: "n9")], olderCursor: "X")
            default: server.page(for: request)
            }
        }
        let feed = try test.feed(cycling, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        while let gap = await feed.snapshot.gaps.first, gap.state == .idle {
            await feed.loadGap(gap)
        }
        let stopped = try #require(await feed.snapshot.gaps.first)
        guard case .failed(let error) = stopped.state else {
            Issue.record("gap state \(stopped.state)")
            return
        }
        #expect(error.kind == .paginationLoop)
        // A look at the file, as an app's next read does, finds nothing the feed has not shown.
        _ = try await feed.identifiers()
        await feed.waitUntilIdle()
        let snapshots = await recorder.snapshots(settlingOn: feed)
        let shown = try #require(snapshots.firstIndex { $0.gaps.first?.state == stopped.state })
        #expect(snapshots.count == shown + 1, "snapshots after the loop: \(snapshots[(shown + 1)...].map(\.change))")
        try await check(recorder, feed, "after the loop")
    }

    /// A server answering every fill with the same page ending on a deep row (n10, p5, five rows
    /// below the far side's top) and the same cursor: the first fill moves p5 up, the second fails
    /// with `paginationLoop`.
    @Test func aServerRepeatingAPageEndingOnADeepRowFailsWithPaginationLoop() async throws {
        let (_, server, _) = try await test.timelineWithAGap()  // n0…n9, a gap, p0…p9
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let repeating = ScriptedSource<Post> { request in
            switch request {
            case .olderThan: Page(items: [Post(id: "n10"), Post(id: "p5")], olderCursor: "X")
            default: server.page(for: request)
            }
        }
        let feed = try test.feed(repeating, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        for fill in 0..<3 {
            guard let gap = await feed.snapshot.gaps.first, gap.state == .idle else { break }
            await feed.loadGap(gap)
            try await check(recorder, feed, "fill \(fill)")
        }
        let state = await feed.snapshot.gaps.first?.state
        if case .failed(let error) = state {
            #expect(error.kind == .paginationLoop)
        } else {
            Issue.record("gap state \(String(describing: state))")
        }
    }
}
