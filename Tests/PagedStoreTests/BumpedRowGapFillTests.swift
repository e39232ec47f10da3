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

    /// s1007 bumped, then nine new posts: the refresh lists s1019…s1015 and leaves a gap, whose fill
    /// from the top lists s1014…s1011 and ends on s1007, cached below s1010 at the far side's edge.
    /// The page does not show that it reached the far side: s1007 moves up, the gap stays below it,
    /// and the next fill reaches s1010.
    @Test func aTopFillThatEndsOnABumpedRowKeepsTheGapBelowIt() async throws {
        let (feed, server, recorder) = try await cached()
        server.bump("s1007")
        server.publish(9)
        try await refreshFillAndReadOn(feed, server, recorder, fillingFrom: .top)
    }

    /// Nine new posts, s1010 and s1009 deleted: the fill from the top ends on s1008 as above, which
    /// moves up; the next fill goes on in the cached order from s1007 and proves the two deleted.
    @Test func aTopFillThatEndsBelowDeletedRowsHasTheNextFillProveThem() async throws {
        let (feed, server, recorder) = try await cached()
        server.publish(9)
        server.delete(["s1010", "s1009"])
        await feed.refresh()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: .top)
        try await check(recorder, feed, "fill ending on s1008")
        #expect(
            await feed.snapshot.ids.prefix(10) == [
                "s1019", "s1018", "s1017", "s1016", "s1015", "s1014", "s1013", "s1012", "s1011", "s1008",
            ])
        #expect(await feed.snapshot.gaps.count == 1, "the page did not show that it reached s1010")
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: .top)
        try await check(recorder, feed, "fill going on from s1007")
        let ids = await feed.snapshot.ids
        #expect(!ids.contains("s1010") && !ids.contains("s1009"))
        #expect(await feed.snapshot.gaps.isEmpty)
        try await scrollToTheEnd(feed)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// A refresh (which leaves a gap), the gap's fill from `end`, and every page after: every change
    /// applies, and the feed ends as the server's list.
    func refreshFillAndReadOn(
        _ feed: Feed<Post>, _ server: TimelineModel, _ recorder: SnapshotRecorder<Post>, fillingFrom end: GapEnd
    ) async throws {
        await feed.refresh()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: end)
        try await check(recorder, feed, "fill from \(end)")
        try await scrollToTheEnd(feed)
        try await check(recorder, feed, "settled")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }
}
