import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A row bumped to the top (a new serial, so a new place for keyset cursors) while the feed caches
/// it at its old place, then buried by new posts so that a keepGap refresh leaves a gap above it:
/// the page that fills the gap lists the bumped item at its new place, and the row moves there.
@Suite(.limit(minutes: 3)) struct BumpedRowGapFillTests: FeedRuleSuite {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// s1010…s1006 cached (pages of 5), the next page's cursor below them.
    func cached() async throws -> (Feed<Post>, TimelineModel, SnapshotRecorder<Post>) {
        let server = TimelineModel(count: 10, pageSize: 5, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { request in server.page(for: request) }
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        #expect(await feed.snapshot.ids == (1006...1010).reversed().map { "s\($0)" })
        return (feed, server, await SnapshotRecorder(feed))
    }

    /// s1008 bumped, then 12 new posts: the refresh leaves a gap, and its fill from the bottom lists
    /// s1015…s1012 and s1008, cached below the gap: s1008 moves up there.
    @Test func aBottomFillThatListsABumpedRowMovesIt() async throws {
        let (feed, server, recorder) = try await cached()
        server.bump("s1008")
        server.publish(12)
        try await refreshFillAndReadOn(feed, server, recorder, fillingFrom: .bottom)
    }

    /// Two new posts, s1009 bumped, six more: the refresh leaves a gap, and its fill from the top
    /// lists s1014, s1009 (cached below s1010), s1012, s1011, s1010. The far side is reached at
    /// s1010, listed in the cached order; s1009 moves up, and s1012 and s1011 go in.
    @Test func aTopFillThatListsABumpedRowFirstReachesTheFarSideInTheCachedOrder() async throws {
        let (feed, server, recorder) = try await cached()
        server.publish(2)
        server.bump("s1009")
        server.publish(6)
        try await refreshFillAndReadOn(feed, server, recorder, fillingFrom: .top)
    }

    /// s1010…s1001 cached; s1003 bumped, then nine new posts: the refresh lists five of them and
    /// leaves a gap, whose fill from the top lists the other four and ends on s1003, seven rows
    /// below the far side's top, more than a page of five proves deleted. s1003 moves up, the gap
    /// stays below it, and the next fill reaches s1010.
    @Test func aTopFillThatEndsOnARowBumpedFromDeepBelowKeepsTheGapBelowIt() async throws {
        let (feed, server, recorder) = try await cached()
        await feed.loadNextPage()
        server.bump("s1003")
        server.publish(9)
        try await refreshFillAndReadOn(feed, server, recorder, fillingFrom: .top, closes: false)
    }

    /// Nine new posts and the far side's top rows deleted instead of bumped: the fill from the top
    /// ends on the first row left, below no more rows than a page of five proves deleted. With as
    /// many rows cached under that row as it passed (s1008, over s1007 and s1006), the page cannot
    /// tell the deletions from that row bumped from under them: it moves up, the gap stays below
    /// it, and the next fill, listing the rows under it, proves the deletions. With fewer, that
    /// fill might list too few to prove them: the page proves them, and no gap is left.
    @Test(arguments: [
        (["s1010", "s1009"], false), (["s1010", "s1009", "s1008"], true),
        (["s1010", "s1009", "s1008", "s1007"], true),
    ])
    func aTopFillThatEndsBelowRowsItCanProveDeletedProvesThem(deleted: [String], closes: Bool) async throws {
        let (feed, server, recorder) = try await cached()
        server.publish(9)
        server.delete(Set(deleted))
        try await refreshFillAndReadOn(feed, server, recorder, fillingFrom: .top, closes: closes)
    }

    /// The whole list cached (`deleted` + 1 + `live` rows, its end reached), its top `deleted` rows
    /// deleted, then nine new posts: the fill from the top ends on the first row left, with `live`
    /// rows under it, fewer than it passed. A next fill would list only those, too few to prove
    /// the deletions: this one proves them, and no deleted post stays.
    @Test(arguments: [(2, 1), (3, 2), (4, 3), (3, 1), (5, 4)])
    func deletionsAboveARowNearTheListsEndAreProved(deleted: Int, live: Int) async throws {
        let server = TimelineModel(count: deleted + 1 + live, pageSize: 5, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { request in server.page(for: request) }
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        await feed.loadNextPage()
        let cached = await feed.snapshot.ids
        #expect(cached == server.items.map(\.id))
        server.publish(9)
        server.delete(Set(cached.prefix(deleted)))
        let recorder = await SnapshotRecorder(feed)
        try await scrollToTheEnd(feed, "scroll", refreshingFirst: true)
        try await check(recorder, feed, "settled")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// Two new posts, the far side's top s1010 bumped, two more, then five: the refresh leaves a
    /// gap over s1010, and its fill from the top lists s1015, s1014, s1010, then s1012 and s1011,
    /// which the feed lacks, under it. s1010 moves up over them and the gap stays under the page;
    /// closed at s1010, the fill left the two out for good.
    @Test(arguments: [FeedPolicy.ItemOrder.fixed, .byActivity])
    func aTopFillThatListsNewPostsUnderTheFarSidesTopTakesThem(order: FeedPolicy.ItemOrder) async throws {
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, itemOrder: order)
        let (feed, server, _) = try await test.refreshedTimeline(count: 10, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        server.publish(2)
        server.bump("s1010")
        server.publish(2)
        server.publish(5)
        try await refreshFillAndReadOn(feed, server, recorder, fillingFrom: .top, closes: false)
    }

    /// The far side's top rows s1010 and s1009 kept, s1008 bumped to just above them, then nine new
    /// posts: the fill from the top ends on s1008, above s1007, listing none of s1010 and s1009.
    /// Taken for deletions, they were skipped for good; taken for a bump, the next fill lists them.
    @Test func aTopFillThatEndsOnARowBumpedFromJustBelowTheFarSidesTopSkipsNothing() async throws {
        let (feed, server, recorder) = try await cached()
        server.bump("s1008")
        server.publish(9)
        try await refreshFillAndReadOn(feed, server, recorder, fillingFrom: .top, closes: false)
    }

    /// s1040…s1026 cached; the server bumps s1038, publishes seven posts, then bumps s1022 and
    /// s1027: the refresh by first page keeps a gap above s1040 and s1039, and the fill ends on
    /// s1038, bumped from under them. Nothing is deleted: the scroll ends on the server's list.
    @Test func bumpsAroundAGapSkipNoPost() async throws {
        let server = TimelineModel(count: 40, pageSize: 5, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { request in server.page(for: request) }
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        server.bump("s1038")
        server.publish(7)
        server.bump("s1022")
        server.bump("s1027")
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        try await check(recorder, feed, "after the refresh")
        try await scrollToTheEnd(feed, "scroll", refreshingFirst: true)
        try await check(recorder, feed, "settled")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// A second store on the file follows each fill of the first (s1003, bumped from deep below,
    /// moved by the first fill; s1009's deletion proved by the next): every change it shows
    /// applies, and it ends as the file.
    @Test func aSecondStoreFollowsAFillThatMovesARowBumpedFromDeepBelow() async throws {
        let (feed, server, _) = try await cached()
        await feed.loadNextPage()
        server.bump("s1003")
        server.publish(9)
        server.delete(["s1009"])
        await feed.refresh()
        let source = ScriptedSource<Post> { request in server.page(for: request) }
        let other = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        _ = await other.snapshots.first { _ in true }
        let recorder = await SnapshotRecorder(other)
        for step in 0..<4 {
            guard let gap = await feed.snapshot.gaps.first else { break }
            await feed.loadGap(gap, from: .top)
            try await other.syncWithFile()
            try await check(recorder, other, "follow fill \(step)")
            let followed = await other.snapshot.ids
            #expect(followed == (await feed.snapshot.ids))
        }
        try await scrollToTheEnd(feed)
        try await other.syncWithFile()
        try await check(recorder, other, "settled")
        let final = await other.snapshot.ids
        #expect(final == server.items.map(\.id))
    }

    /// A refresh (which leaves a gap), the gap's fill from `end` (which `closes` the gap, or leaves
    /// it, when given), and every page after: every change applies, and the feed ends as the
    /// server's list.
    func refreshFillAndReadOn(
        _ feed: Feed<Post>, _ server: TimelineModel, _ recorder: SnapshotRecorder<Post>, fillingFrom end: GapEnd,
        closes: Bool? = nil
    ) async throws {
        await feed.refresh()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: end)
        try await check(recorder, feed, "fill from \(end)")
        if let closes { #expect(await feed.snapshot.gaps.isEmpty == closes) }
        try await scrollToTheEnd(feed)
        try await check(recorder, feed, "settled")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }
}
