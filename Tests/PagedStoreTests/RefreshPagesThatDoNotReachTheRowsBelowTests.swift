import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A refreshed first page that overlaps the cached rows but ends with items the feed lacks (a ranked
/// list put new posts there, or a post was bumped after others were published): the page does not
/// reach the rows below its overlap. Under the keepGap policy a gap goes between them, shown by the
/// feed that refreshed and by another store's, and filling it reaches the server's list; a gap
/// already there keeps its cursors. Deletions among the shared rows still count.
@Suite(.limit(minutes: 3)) struct RefreshPagesThatDoNotReachTheRowsBelowTests: FeedRuleSuite {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// p0…p(count-1) by pages of `pageSize`, read to the end, and a recorder of its snapshots from there.
    func timelineReadToTheEnd(
        _ gapPolicy: FeedPolicy.GapPolicy, count: Int = 30, pageSize: Int = 10, maxRows: Int? = nil
    ) async throws -> (server: ModelServer, feed: Feed<Post>, recorder: SnapshotRecorder<Post>) {
        let server = ModelServer(Self.posts("p", 0..<count), pageSize: pageSize)
        let feed = try test.feed(server.source, policy: Self.policy(gapPolicy, maxRows: maxRows))
        await feed.refresh()
        try await scrollToTheEnd(feed)
        #expect(await feed.snapshot.ids.count == count)
        return (server, feed, await SnapshotRecorder(feed))
    }

    static func policy(_ gapPolicy: FeedPolicy.GapPolicy, maxRows: Int? = nil) -> FeedPolicy {
        FeedPolicy(
            refreshOnOpen: .never, gapPolicy: gapPolicy, windowSize: 1_000, firstScreenRows: 1_000, maxRows: maxRows)
    }

    /// p0 stays on top and three new posts go right below it; the page of three lists two of them.
    /// The gap under the page is in the feed that refreshed, and filling it brings N2.
    @Test func newPostsBelowTheTopRowPastThePagesEndAreReachedThroughAGap() async throws {
        let (server, feed, recorder) = try await timelineReadToTheEnd(.keepGap, count: 9, pageSize: 3)
        server.items.insert(contentsOf: Self.posts("N", 0..<3), at: 1)
        await feed.refresh()
        try await check(recorder, feed, "refresh")
        let refreshed = await feed.snapshot
        #expect(refreshed.ids.prefix(4) == ["p0", "N0", "N1", "p1"])
        #expect(refreshed.gaps.map(\.afterRow) == [2], "the gap the refresh wrote, in the feed that wrote it")
        try await scrollToTheEnd(feed, refreshingFirst: true)
        try await check(recorder, feed, "settled")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// Another store's list of the feed follows the refresh to the same rows and the same gap.
    @Test func anotherStoresListShowsTheGap() async throws {
        let (server, feed, _) = try await timelineReadToTheEnd(.keepGap)
        let other = try test.feed(server.source, policy: Self.policy(.keepGap), store: try test.store())
        let watched = await ObservedList(other)
        server.items.insert(contentsOf: Self.posts("N", 0..<12), at: 1)
        await feed.refresh()
        let mine = await feed.snapshot
        #expect(mine.gaps.count == 1)
        let theirs = await watched.firstSnapshot(within: .seconds(20)) { $0.ids == mine.ids && $0.gaps.count == 1 }
        let shown = await other.snapshot
        #expect(theirs != nil, "the other store's list never showed the rows and the gap: \(shown.gaps)")
        try await scrollToTheEnd(other)
        #expect(await other.snapshot.ids == server.items.map(\.id))
    }

    /// A row limit trims in the refresh that writes the gap: reading on still reaches every server
    /// item in order.
    @Test func aTrimInTheSameRefreshKeepsTheGap() async throws {
        let (server, feed, recorder) = try await timelineReadToTheEnd(.keepGap, maxRows: 12)
        server.items.insert(contentsOf: Self.posts("N", 0..<12), at: 1)
        await feed.refresh()
        try await check(recorder, feed, "refresh")
        try await scrollToTheEnd(feed)
        try await check(recorder, feed, "settled")
        let ids = await feed.snapshot.ids
        #expect(ids == Array(server.items.map(\.id).prefix(ids.count)), "\(ids)")
    }

    /// A ranked list: p5 bumped right under a new post, a second new post right under p5. The page
    /// of three ends with p5, a row moved up from below the overlap (which ends at p0): the rows
    /// below p0 go under a gap, and filling it brings N1.
    @Test func aRowMovedUpLastOnThePageDoesNotJoinTheRowsBelow() async throws {
        let (server, feed, recorder) = try await timelineReadToTheEnd(.keepGap, count: 9, pageSize: 3)
        var items = server.items
        let p5 = items.remove(at: 5)
        items.insert(contentsOf: [Post(id: "N0"), p5, Post(id: "N1")], at: 1)
        server.items = items
        await feed.refresh()
        try await check(recorder, feed, "refresh")
        #expect(await feed.snapshot.gaps.count == 1)
        try await scrollToTheEnd(feed, refreshingFirst: true)
        try await check(recorder, feed, "settled")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// n0…n9, a gap, p0…: n0 deleted and X published right below n9. The page ends with X, new to
    /// the feed, and its overlap ends at n9, which has the gap right below: that gap stays, with the
    /// cursor that fills it from the bottom.
    @Test func aGapAlreadyBelowTheOverlapKeepsItsBottomCursor() async throws {
        let (feed, server, recorder) = try await test.recordedTimelineWithAGap()
        #expect(await feed.snapshot.gaps.map(\.canFillFromBottom) == [true])
        var items = server.items
        items.remove(at: 0)
        items.insert(Post(id: "X"), at: 9)
        server.items = items
        await feed.refresh()
        try await check(recorder, feed, "refresh")
        #expect(await feed.snapshot.gaps.map(\.canFillFromBottom) == [true])
        try await scrollToTheEnd(feed, fillingGapsFromBothEnds: true)
        try await check(recorder, feed, "settled")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// An ordinary timeline: eight new posts, and p1 deleted. The page lists p0 and p2 one right
    /// below the other: p1, between them in the cache, is deleted, under either policy.
    @Test(arguments: [FeedPolicy.GapPolicy.keepGap, .replace])
    func aRowDeletedBetweenTwoSharedRowsThePageListsTogetherIsDeleted(gapPolicy: FeedPolicy.GapPolicy) async throws {
        let (server, feed, recorder) = try await timelineReadToTheEnd(gapPolicy)
        server.items.remove(at: 1)
        server.items.insert(contentsOf: Self.posts("N", 0..<8), at: 0)
        await feed.refresh()
        try await check(recorder, feed, "refresh")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }
}
