import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Ranked, page-numbered lists (posts bumped up, new posts pushing others to the next page): a
/// refresh with no overlap keeps or replaces as the gap policy says, a gap with no bottom cursor
/// fills from the end it can, shifted pages land in place, and reading on reaches the server's list.
@Suite(.limit(minutes: 3)) struct RankedListRefreshTests: FeedRuleSuite {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    static func ranked(_ list: Locked<[Post]>, pageSize: Int = 10) -> ScriptedSource<Post> {
        ScriptedSource<Post> { request in
            let items = list.value
            let page = Int(request.cursor ?? "1") ?? 1
            let slice = Array(items[min((page - 1) * pageSize, items.count)..<min(page * pageSize, items.count)])
            return Page(items: slice, olderCursor: page * pageSize < items.count ? "\(page + 1)" : nil)
        }
    }

    /// A ranked list of p0…p49 by pages of 10, read to the end, and a recorder of its snapshots from
    /// there.
    func rankedFeedReadToTheEnd(
        _ gapPolicy: FeedPolicy.GapPolicy
    ) async throws -> (list: Locked<[Post]>, feed: Feed<Post>, recorder: SnapshotRecorder<Post>) {
        let list = Locked(Self.posts("p", 0..<50))
        let feed = try test.feed(
            Self.ranked(list),
            policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: gapPolicy, windowSize: 1_000, firstScreenRows: 1_000))
        await feed.refresh()
        try await scrollToTheEnd(feed)
        return (list, feed, await SnapshotRecorder(feed))
    }

    func rankedLastPlace(_ gapPolicy: FeedPolicy.GapPolicy) async throws {
        let list = Locked(Self.posts("p", 0..<50))
        let source = ScriptedSource<Post> { request in
            let items = list.value
            let page = Int(request.cursor ?? "1") ?? 1
            let slice = Array(items[min((page - 1) * 10, items.count)..<min(page * 10, items.count)])
            return Page(items: slice, olderCursor: page * 10 < items.count ? "\(page + 1)" : nil)
        }
        let feed = try test.feed(
            source,
            policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: gapPolicy, windowSize: 1_000, firstScreenRows: 1_000))
        await feed.refresh()
        try await scrollToTheEnd(feed)
        #expect(await feed.snapshot.ids.count == 50)
        let recorder = await SnapshotRecorder(feed)
        list.mutate { $0.insert(Post(id: "NEW"), at: 9) }
        await feed.refresh()
        try await check(recorder, feed, "ranked refresh (\(gapPolicy))")
        let afterRefresh = await feed.snapshot.ids
        #expect(afterRefresh.count >= 50, "the refresh threw away the reader's rows: \(afterRefresh.count) left")
        try await scrollToTheEnd(feed)
        #expect(await feed.snapshot.ids == list.value.map(\.id))
        try await check(recorder, feed, "ranked settled (\(gapPolicy))")
    }

    /// A ranked (page-numbered) list: a new post lands at the last place of page 1. With keepGap the
    /// gap it leaves must fill back to exactly the server's list.
    @Test func aNewPostAtTheLastPlaceOfARankedFirstPageKeepGap() async throws {
        try await rankedLastPlace(.keepGap)
    }

    /// The same with the default gap policy (`.replace`): does the reader lose the 40 rows below?
    @Test func aNewPostAtTheLastPlaceOfARankedFirstPageReplace() async throws {
        try await rankedLastPlace(.replace)
    }

    /// The user removed a row locally; the server still lists it, at the end of its first page.
    @Test func aLocallyRemovedRowAtTheEndOfTheRefreshPage() async throws {
        let list = Self.posts("p", 0..<50)
        let source = ScriptedSource<Post> { request in
            let page = Int(request.cursor ?? "1") ?? 1
            let slice = Array(list[(page - 1) * 10..<min(page * 10, list.count)])
            return Page(items: slice, olderCursor: page * 10 < list.count ? "\(page + 1)" : nil)
        }
        let feed = try test.feed(
            source, policy: FeedPolicy(refreshOnOpen: .never, windowSize: 1_000, firstScreenRows: 1_000))
        await feed.refresh()
        try await scrollToTheEnd(feed)
        #expect(try await feed.remove(id: "p9"))
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        try await check(recorder, feed, "locally removed row")
        let ids = await feed.snapshot.ids
        #expect(ids.count >= 49, "a refresh with nothing new dropped the reader's rows: \(ids.count) left")
    }

    /// A keepGap refresh on a ranked list whose new post lands last on page 1 leaves a gap with no
    /// bottom cursor: filling it from the bottom must not hang, loop or stay loading, and reading on
    /// must reach the server's list.
    @Test func aGapWithoutABottomCursorIsFilledFromTheEndItCan() async throws {
        let list = Locked(Self.posts("p", 0..<50))
        let source = ScriptedSource<Post> { request in
            let items = list.value
            let page = Int(request.cursor ?? "1") ?? 1
            let slice = Array(items[min((page - 1) * 10, items.count)..<min(page * 10, items.count)])
            return Page(items: slice, olderCursor: page * 10 < items.count ? "\(page + 1)" : nil)
        }
        let feed = try test.feed(
            source,
            policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 1_000, firstScreenRows: 1_000))
        await feed.refresh()
        try await scrollToTheEnd(feed)
        let recorder = await SnapshotRecorder(feed)
        list.mutate { $0.insert(Post(id: "NEW"), at: 9) }
        await feed.refresh()
        var fills = 0
        while let gap = await feed.snapshot.gaps.first, fills < 20 {
            // A gap without a bottom cursor: `.bottom` silently does nothing (no fetch, no failure),
            // so an app filling from the bottom keeps this gap forever. Fill it from the end it can.
            await feed.loadGap(gap, from: gap.canFillFromBottom ? .bottom : .top)
            fills += 1
            if case .failed = gap.state { break }
        }
        try await check(recorder, feed, "gap filled")
        let gapsLeft = await feed.snapshot.gaps
        #expect(gapsLeft.isEmpty, "gap left: \(gapsLeft)")
        #expect(await feed.snapshot.ids == list.value.map(\.id))
    }

    /// A ranked list: two deep posts bumped to the top, one changed, two new posts published; every
    /// gap filled and every page read, the feed is the server's list.
    @Test(arguments: [FeedPolicy.GapPolicy.keepGap, .replace]) func aRankedListWithBumpsAndNewPosts(
        gapPolicy: FeedPolicy.GapPolicy
    ) async throws {
        let (list, feed, recorder) = try await rankedFeedReadToTheEnd(gapPolicy)
        list.mutate { items in
            let p30 = items.remove(at: 30)
            var p40 = items.remove(at: items.firstIndex { $0.id == "p40" }!)
            p40.revision = 1
            items.insert(contentsOf: [Post(id: "N0"), p40, Post(id: "N1"), p30], at: 0)
        }
        await feed.refresh()
        try await check(recorder, feed, "ranked refresh")
        try await scrollToTheEnd(feed)
        try await check(recorder, feed, "ranked settled")
        #expect(await feed.snapshot.ids == list.value.map(\.id))
    }

    /// A post bumped to the top of a ranked list, as the first page's only row the feed has.
    enum Bump: CaseIterable, Sendable {
        /// Eight new posts, p30 bumped up from deep in the cached rows, one more new post: p0…p29,
        /// cached above p30's old row, are more than a page could prove deleted.
        case fromDeepDown
        /// Four new posts, p5 bumped up from six rows down, five more new posts: the page lists new
        /// posts below p5, not p6, so p0…p4 may be anywhere below the page.
        case withNewPostsBelowIt

        /// The bumped post's index in the server's list before the bump.
        var from: Int { self == .fromDeepDown ? 30 : 5 }
        /// The new posts above the bumped one, and below it.
        var newAround: (above: Range<Int>, below: Range<Int>) {
            self == .fromDeepDown ? (0..<8, 8..<9) : (0..<4, 4..<9)
        }
    }

    /// A bumped post that is the page's only row the feed has proves nothing above its old row
    /// deleted: p0, cached above it, is kept (or the list replaced). Every gap filled and every page
    /// read, the feed is the server's list.
    @Test(arguments: [FeedPolicy.GapPolicy.keepGap, .replace], Bump.allCases)
    func aPostBumpedAsThePagesOnlyKnownRowProvesNothingAboveItDeleted(
        gapPolicy: FeedPolicy.GapPolicy, bump: Bump
    ) async throws {
        let (list, feed, recorder) = try await rankedFeedReadToTheEnd(gapPolicy)
        list.mutate { items in
            let bumped = items.remove(at: bump.from)
            items.insert(
                contentsOf: Self.posts("N", bump.newAround.above) + [bumped] + Self.posts("N", bump.newAround.below),
                at: 0)
        }
        await feed.refresh()
        try await check(recorder, feed, "bumped refresh")
        #expect(
            await feed.snapshot.ids.contains("p0") || gapPolicy == .replace, "the rows above the bumped post's old row")
        try await scrollToTheEnd(feed)
        try await check(recorder, feed, "bumped settled")
        #expect(await feed.snapshot.ids == list.value.map(\.id))
    }

    /// A page-numbered list shifts down by two while page 3 is on the wire; a refresh merges the new
    /// posts on top (the bottom stays), then the shifted page 3 lands: it repeats p18 and p19.
    @Test func aShiftedPageThreeLandsAfterARefreshKeptTheBottom() async throws {
        let source = ScriptedSource<Post>()
        let feed = try test.feed(
            source,
            policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 1_000, firstScreenRows: 1_000))
        let seed = Task { await feed.refresh() }
        await source.nextFetch().respond(Page(items: Self.posts("p", 0..<10), olderCursor: "2"))
        await seed.value
        let second = Task { await feed.loadNextPage() }
        await source.nextFetch().respond(Page(items: Self.posts("p", 10..<20), olderCursor: "3"))
        await second.value
        let recorder = await SnapshotRecorder(feed)
        let third = Task { await feed.loadNextPage() }
        let pageThree = await source.nextFetch()
        let refresh = Task { await feed.refresh() }
        await source.nextFetch().respond(
            Page(items: [Post(id: "N0"), Post(id: "N1")] + Self.posts("p", 0..<8), olderCursor: "2"))
        await refresh.value
        pageThree.respond(Page(items: Self.posts("p", 18..<28), olderCursor: "4"))
        await third.value
        await feed.waitUntilIdle()
        #expect(try test.idsOnDisk() == ["N0", "N1"] + Self.ids("p", 0..<28))
        try await check(recorder, feed, "shifted page three")
    }
}
