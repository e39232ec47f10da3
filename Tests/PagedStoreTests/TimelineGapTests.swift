import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Gaps filled from either end, gaps the server cannot fill, and gaps a refresh fills by itself.
@Suite(.limit(minutes: 3)) struct TimelineGapTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func aGapFilledFromTheBottomGoesRightAboveTheRowsBelowWithItsOwnRows() async throws {
        let (feed, server, source) = try await test.timelineWithAGap()
        let gap = try #require(await feed.snapshot.gaps.first)
        #expect(gap.afterRow == 9 && gap.canFillFromBottom)
        let recorder = await SnapshotRecorder(feed)
        await feed.loadGap(gap, from: .bottom)
        #expect(source.requests.last == .newerThan(cursor: "new:p0"), "the rows below the gap's newer cursor")
        var snapshot = await feed.snapshot
        #expect(snapshot.ids == (0..<10).map { "n\($0)" } + (15..<25).map { "n\($0)" } + (0..<10).map { "p\($0)" })
        #expect(snapshot.change.insertedRows == (10..<20).map { IndexPath(section: 0, row: $0) })
        #expect(snapshot.gaps.map(\.id) == [gap.id], "the same gap, above the new rows, until it closes")
        #expect(snapshot.gaps.first?.afterRow == 9)
        await feed.loadGap(try #require(snapshot.gaps.first), from: .bottom)
        snapshot = await feed.snapshot
        #expect(snapshot.gaps.isEmpty, "the page reached n9, above the gap")
        #expect(snapshot.change.insertedRows == (10..<15).map { IndexPath(section: 0, row: $0) })
        #expect(snapshot.ids == Array(server.items.prefix(35).map(\.id)))
        #expect(try test.idsOnDisk() == snapshot.ids)
        try await ReferenceModelTests.check(recorder, feed, test, "bottom fill")
    }

    @Test func bothEndsMeetInTheMiddle() async throws {
        let (feed, server, _) = try await test.timelineWithAGap()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: .top)  // n10…n19
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: .bottom)  // n20…n24, reaches n19
        let snapshot = await feed.snapshot
        #expect(snapshot.gaps.isEmpty)
        #expect(snapshot.ids == Array(server.items.prefix(35).map(\.id)))
    }

    @Test func aFillOfOnlyKnownItemsClosesTheGapWithoutInserting() async throws {
        let (feed, server, _) = try await test.timelineWithAGap()
        server.items = Array(server.items[0..<10]) + Array(server.items[25...])  // n10…n24 deleted
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: .bottom)
        let snapshot = await feed.snapshot
        #expect(snapshot.gaps.isEmpty)
        #expect(snapshot.change.insertedRows.isEmpty)
        #expect(snapshot.ids == (0..<10).map { "n\($0)" } + (0..<10).map { "p\($0)" })
    }

    @Test func aGapTheServerCannotFillStaysUnfillableIsNeverFetchedAgainAndCanBeDismissed() async throws {
        let (_, server, _) = try await test.timelineWithAGap()
        // The server no longer has what lies below n9 (Mastodon keeps a few hundred posts).
        let forgetful = ScriptedSource<Post> { request in
            if case .olderThan("n9") = request { return Page(items: [], olderCursor: nil) }
            return server.page(for: request)
        }
        var feed = try test.feed(forgetful, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        let gap = try #require(await feed.snapshot.gaps.first)
        await feed.loadGap(gap)
        #expect(await feed.snapshot.gaps.map(\.state) == [.unfillable])
        #expect(await feed.snapshot.gaps.first?.canFillFromBottom == false)
        let requests = forgetful.requests.count
        await feed.loadGap(gap)
        await feed.loadGap(gap, from: .bottom)
        await feed.retry()
        #expect(forgetful.requests.count == requests, "nothing is fetched for an unfillable gap")
        feed = try test.feed(forgetful, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        #expect(await feed.snapshot.gaps.map(\.state) == [.unfillable], "kept across a relaunch")
        await feed.dismissGap(gap)
        #expect(await feed.snapshot.gaps.isEmpty)
        #expect(try test.gapsOnDisk().isEmpty)
        #expect(await feed.snapshot.ids.count == 20, "dismissing removes the marker, not rows")
    }

    @Test func aRefreshFillsTheSmallGapItMadeByItself() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, autoFillGapPages: 2)
        let (feed, server, _) = try await test.timelineWithAGap(policy: policy)
        let snapshot = await feed.snapshot
        #expect(snapshot.gaps.isEmpty, "25 new posts: the first page and two fills of 10 close it")
        #expect(snapshot.ids == Array(server.items.prefix(35).map(\.id)))
        #expect(snapshot.refresh == .idle)
    }

    @Test func aLargeGapKeepsWhatTheAutomaticFillsDidNotReach() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, autoFillGapPages: 1)
        let (feed, _, _) = try await test.timelineWithAGap(policy: policy)
        let snapshot = await feed.snapshot
        #expect(snapshot.gaps.map(\.afterRow) == [19], "one page filled, the rest still a gap")
    }

    /// A gap whose rows below are all gone (removed by the app) is the feed's end: filling it hands
    /// the page's older cursor to the next page, so the rows below are fetched again, none skipped.
    @Test func aGapWithNoRowsLeftBelowItBecomesTheBottomAndNextPagesGoOn() async throws {
        let (feed, server, _) = try await test.timelineWithAGap()  // n0…n9, a gap, p0…p9
        for id in (0..<10).map({ "p\($0)" }) { try await feed.remove(id: id) }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))  // n10…n19
        #expect(await feed.snapshot.gaps.isEmpty)
        #expect(await feed.snapshot.nextPage == .idle)
        await feed.loadNextPage()  // n20…n24, p0…p4
        #expect(await feed.snapshot.ids.prefix(25) == ArraySlice(server.items.prefix(25).map(\.id)))
    }
}

extension FeedTestCase {
    /// The gap markers on disk, top first.
    func gapsOnDisk(key: String = "home") throws -> [GapRecord] {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { store in
            guard let feed = try store.feed(key: key) else { return [] }
            return try store.gaps(of: feed)
        }
    }
}
