import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A removal the server rejects puts the server's row back where it stood, on its side of any gap:
/// the row right above a gap (the gap hangs under it), the row right below one, and the rows of a
/// whole page that a refresh listed again while their removals waited (the page's rows went again
/// at once, and its gap stayed with no row above it). On the wrong side of a gap, the gap's fill
/// proved the posts deleted or left them out of order.
@Suite(.limit(minutes: 2)) struct RejectedRemovalsAroundGapsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    func ids(_ prefix: String, _ range: Range<Int>) -> [String] { range.map { "\(prefix)\($0)" } }

    /// Loads p0…p19 and queues the removals of `removed`, the whole first page unless told.
    func removeTheFirstPage(
        of feed: Feed<Post>, removing removed: [String] = (0..<10).map { "p\($0)" }
    )
        async throws
    {
        await feed.refresh()
        await feed.loadNextPage()
        for id in removed {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
    }

    /// Scrolls `feed` to its end after a refresh, checking every change on the way, and expects the
    /// server's list.
    func expectTheScrollEndsOnTheServersList(
        _ feed: Feed<Post>, _ server: ModelServer, _ context: String
    ) async throws {
        let recorder = await SnapshotRecorder(feed)
        try await scrollToTheEnd(feed, context, refreshingFirst: true)
        try await ReferenceModelTests.check(recorder, feed, test, "\(context): the scroll")
        #expect(await feed.snapshot.ids == server.items.map(\.id), "\(context)")
    }

    /// ``removeTheFirstPage(of:)``, then a refresh that lists p0…p9 again while their removals wait,
    /// then every removal rejected.
    func removeTheFirstPageRefreshAndReject(_ feed: Feed<Post>) async throws {
        try await removeTheFirstPage(of: feed)
        await feed.refresh()
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 10)
    }

    @Test(arguments: [FeedPolicy.GapPolicy.keepGap, .replace])
    func rejectedRemovalsOfTheWholeFirstPageSkipNothing(gapPolicy: FeedPolicy.GapPolicy) async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: gapPolicy))
        try await removeTheFirstPage(of: feed)
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

    /// p0..p19 loaded, then n0..n9 published and refreshed under keepGap: n0..n9, gap, p0..p19.
    func feedWithAGapUnderN9(_ server: ModelServer) async throws -> Feed<Post> {
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        await feed.loadNextPage()
        server.items = .posts("n", 10) + server.items
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == ids("n", 0..<10) + ids("p", 0..<20))
        #expect(snapshot.gaps.map(\.afterRow) == [9])
        return feed
    }

    /// The user removes the row right above a gap (the gap stays, hanging under its place), the
    /// server rejects it: it comes back at once, in its place, above the gap.
    @Test func theRowRightAboveAGapRemovedAndRejectedComesBackAtOnce() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try await feedWithAGapUnderN9(server)
        let observed = await ObservedList(feed)
        _ = try #require(try await feed.enqueue("hide", removing: "n9", argument: Revision(revision: 4)))
        #expect(!(await feed.snapshot.ids.contains("n9")))
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        let back = await observed.firstSnapshot(within: .seconds(60)) { $0.ids.contains("n9") }
        #expect(back != nil, "the rejected removal's row is back at once")
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == ids("n", 0..<10) + ids("p", 0..<20), "in its place")
        try await scrollToTheEnd(feed, "after the rejection")
        #expect(await feed.snapshot.ids == ids("n", 0..<10) + ids("p", 0..<30))
    }

    /// n0…n9 over a gap hiding n10…n14, over p0…p9: `server`'s p0…p29 with n0…n14 published.
    func feedOverAGapHidingN10ToN14(
        _ server: ModelServer, policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
    ) async throws -> Feed<Post> {
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        await feed.refresh()
        return feed
    }

    /// Rejects the `count` queued removals, checking every change, then scrolls to the end and
    /// expects the server's list.
    func rejectAllAndScroll(_ count: Int, _ feed: Feed<Post>, _ server: ModelServer) async throws {
        let recorder = await SnapshotRecorder(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == count)
        await feed.waitUntilIdle()
        try await ReferenceModelTests.check(recorder, feed, test, "after the rejections")
        try await scrollToTheEnd(feed, "after the rejections")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// n0…n9 over a gap hiding n10…n14, n9 removed; the gap's fill writes n10…n14 right under n9's
    /// place and reaches p0. Rejected, n9 goes back over them, not right above p0, the row its
    /// removal named below: no later page lists it to put it right.
    @Test func theRowRightAboveAGapRejectedAfterTheGapsFillGoesBackOverTheFill() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try await feedOverAGapHidingN10ToN14(server)
        _ = try #require(try await feed.enqueue("hide", removing: "n9", argument: Revision(revision: 4)))
        let gap = try #require(await feed.snapshot.gaps.first)
        await feed.loadGap(gap)
        #expect(await feed.snapshot.gaps.isEmpty)
        let recorder = await SnapshotRecorder(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        await feed.waitUntilIdle()
        #expect(await feed.snapshot.ids.prefix(16) == (ids("n", 0..<15) + ["p0"])[...])
        try await ReferenceModelTests.check(recorder, feed, test, "after the rejection")
        try await scrollToTheEnd(feed, "after the rejection")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// As above, with p0, the far side's top, removed first: n9's removal names p0, whose row is
    /// gone too, as the row below. The fill hands it on all the same.
    @Test func theRowsOnBothSidesOfAGapRejectedAfterTheGapsFillGoBackInOrder() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try await feedOverAGapHidingN10ToN14(server)
        for id in ["p0", "n9"] {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        let gap = try #require(await feed.snapshot.gaps.first)
        await feed.loadGap(gap)
        if let gap = await feed.snapshot.gaps.first { await feed.loadGap(gap) }
        try await rejectAllAndScroll(2, feed, server)
    }

    /// p0…p5, the first page, queued for removal; nine posts on top, a refresh (n0…n5 over a gap)
    /// and the gap's fill (n6…n8, then p0…p2, which go again at once). The fill's rows go above
    /// the places of p3…p5, whose removals wait under the gap: rejected, each goes back there,
    /// in order.
    @Test func rejectedRemovalsUnderAGapAFillListedSomeOfGoBackInOrder() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 6)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        await feed.loadNextPage()
        for id in ids("p", 0..<6).reversed() {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        server.items = .posts("n", 9) + server.items
        await feed.refresh()
        let gap = try #require(await feed.snapshot.gaps.first)
        await feed.loadGap(gap)
        try await rejectAllAndScroll(6, feed, server)
    }

    /// As above, with p0's removal naming its place by the rows around it only (no row position:
    /// as after a page moved it), which the fill lists under its rows all the same.
    @Test func aRemovalNamingAHiddenItemTheFillListsUnderItsRowsIsHandedOn() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        do {
            let feed = try await feedOverAGapHidingN10ToN14(server, policy: policy)
            for id in ["p0", "n9"] {
                _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
            }
        }
        let connection = try Connection(path: test.path, mode: .readWrite)
        try connection.execute("UPDATE pending_edit SET removed_position = NULL WHERE item_id = 'p0'")
        let feed = try test.feed(server.source, policy: policy)
        let gap = try #require(await feed.snapshot.gaps.first)
        await feed.loadGap(gap)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 2)
        await feed.waitUntilIdle()
        let recorder = await SnapshotRecorder(feed)
        try await scrollToTheEnd(feed, "after the rejections", refreshingFirst: true)
        try await ReferenceModelTests.check(recorder, feed, test, "after the scroll")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// p0, the far side's top, queued for removal, its row's place edited in the file to right
    /// under the gap's: the fill's rows, which go above that place, find no room and move the rows
    /// and places below down first. Rejected, p0 goes back under them.
    @Test func aFillWithNoRoomAboveARemovedRowsPlaceMovesThePlaceDownToo() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try await feedOverAGapHidingN10ToN14(server)
        _ = try #require(try await feed.enqueue("hide", removing: "p0", argument: Revision(revision: 4)))
        let connection = try Connection(path: test.path, mode: .readWrite)
        try connection.execute(
            "UPDATE pending_edit SET removed_position = (SELECT above_position + 1 FROM gap) WHERE item_id = 'p0'")
        let gap = try #require(await feed.snapshot.gaps.first)
        await feed.loadGap(gap)
        #expect(await feed.snapshot.ids.prefix(16) == (ids("n", 0..<15) + ["p1"])[...])
        try await rejectAllAndScroll(1, feed, server)
    }

    /// As above, but a second refresh put a gap above, and its fill listed n0..n9 while n9's removal
    /// was pending (n9 went again at once): after the rejection n9 is back where the fill listed it,
    /// since no page a scroll reads lists it again.
    @Test func theRowAboveADeepGapRejectedAfterTheFillAboveListedItIsNotLost() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try await feedWithAGapUnderN9(server)
        _ = try #require(try await feed.enqueue("hide", removing: "n9", argument: Revision(revision: 4)))
        server.items = .posts("m", 10) + server.items
        await feed.refresh()
        let withTwoGaps = await feed.snapshot
        #expect(withTwoGaps.gaps.count == 2, "\(withTwoGaps.gaps)")
        if let top = withTwoGaps.gaps.first { await feed.loadGap(top) }
        #expect(await feed.snapshot.ids.starts(with: ids("m", 0..<10) + ids("n", 0..<9)))
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        try await scrollToTheEnd(feed, "after the rejection")
        try await scrollToTheEnd(feed, "after a refresh", refreshingFirst: true)
        #expect(
            await feed.snapshot.ids == ids("m", 0..<10) + ids("n", 0..<10) + ids("p", 0..<30),
            "n9, rejected, is shown again")
    }

    /// The row right below a gap (whose row above is still shown), removed and rejected: back at
    /// once, below the gap; the fill skips and repeats nothing.
    @Test func theRowRightBelowAGapRemovedAndRejectedComesBackAtOnceBelowIt() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try await feedWithAGapUnderN9(server)
        let observed = await ObservedList(feed)
        _ = try #require(try await feed.enqueue("hide", removing: "p0", argument: Revision(revision: 4)))
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        let back = await observed.firstSnapshot(within: .seconds(60)) { $0.ids.contains("p0") }
        #expect(back != nil, "the rejected removal's row is back at once")
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == ids("n", 0..<10) + ids("p", 0..<20))
        #expect(snapshot.gaps.map(\.afterRow) == [9])
        try await scrollToTheEnd(feed, "after the rejection")
        #expect(await feed.snapshot.ids == ids("n", 0..<10) + ids("p", 0..<30))
    }

    /// The whole first page, with the feed relaunched between the rejections and the scroll.
    @Test(arguments: [false, true])
    func rejectedRemovalsOfTheWholeFirstPageAcrossARelaunch(serverDeletesOne: Bool) async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        try await removeTheFirstPageRefreshAndReject(try test.feed(server.source, policy: policy))
        if serverDeletesOne { server.items.removeAll { $0.id == "p3" } }
        try await expectTheScrollEndsOnTheServersList(
            try test.feed(server.source, policy: policy), server, "after the relaunch")
    }

    /// The whole first page, with new items published before the refresh that follows the
    /// rejections: the refresh page does not reach p0..p9; a fill of the new gap lists them.
    @Test func rejectedRemovalsOfTheWholeFirstPageThenNewItemsOnTop() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        try await removeTheFirstPageRefreshAndReject(feed)
        server.items = .posts("n", 10) + server.items
        try await expectTheScrollEndsOnTheServersList(feed, server, "after new items")
    }

    /// The whole first page, on a page-numbered server.
    @Test func rejectedRemovalsOfTheWholeFirstPageOnAPageNumberedServer() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(
            server.pageNumberSource, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        try await removeTheFirstPageRefreshAndReject(feed)
        try await expectTheScrollEndsOnTheServersList(feed, server, "after the rejections")
    }

    /// The whole first page, with the gap dismissed by the app after the rejections.
    @Test func rejectedRemovalsWaitingWhileTheGapIsDismissed() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        try await removeTheFirstPageRefreshAndReject(feed)
        for gap in await feed.snapshot.gaps { await feed.dismissGap(gap) }
        try await scrollToTheEnd(feed, "after the dismissal")
        try await expectTheScrollEndsOnTheServersList(feed, server, "after a refresh")
    }

    /// p0…p3 queued for removal; then p2 bumped, five new posts, p12 bumped, p0, p1 and p3 after it:
    /// the refresh's page, p2, n0…n4, p12, p0, p1, p3, ends on three hidden posts under a row it
    /// moved up, with a gap below. p1's removal named the top (p0 was hidden already) and p2 below
    /// it; the page lists p1 below p2, so rejected, it goes back where the page listed it, as do the
    /// others: under p12, above the gap.
    @Test func rejectedRemovalsThatARefreshListedUnderARowItMovedUp() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        try await removeTheFirstPage(of: feed, removing: ids("p", 0..<4))
        let posts = Dictionary(uniqueKeysWithValues: server.items.map { ($0.id, $0) })
        let moved = ["p2"] + [Post].posts("n", 5).map(\.id) + ["p12", "p0", "p1", "p3"]
        server.items = moved.map { posts[$0] ?? Post(id: $0) } + server.items.filter { !moved.contains($0.id) }
        await feed.refresh()
        #expect(await feed.snapshot.ids.prefix(6) == ArraySlice(ids("n", 0..<5) + ["p12"]))
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 4)
        #expect(await feed.snapshot.ids.prefix(10) == ArraySlice(moved))
        try await expectTheScrollEndsOnTheServersList(feed, server, "after the rejections")
    }

    /// n0…n9 on top of a gap over p0…p19 (n10…n19 missing there), all ten queued for removal; ten more posts, m0…m9, and a
    /// refresh that shares nothing with the feed: its rows go above the gap and the removed rows'
    /// places, and its own gap below them, not at the old gap's place. Rejected, n0…n9 go back
    /// between the two gaps, and each gap's fill brings its own rows.
    @Test func aRefreshOverRowsWhoseRemovalsWaitAboveAGapKeepsThatGap() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        await feed.loadNextPage()
        server.items = .posts("n", 20) + server.items
        await feed.refresh()
        #expect(await feed.snapshot.gaps.map(\.afterRow) == [9], "n10…n19 are missing under n9")
        for id in ids("n", 0..<10) {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        server.items = .posts("m", 10) + server.items
        await feed.refresh()
        #expect(await feed.snapshot.gaps.count == 2, "the refresh's gap and the one under n9")
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 10)
        let snapshot = await feed.snapshot
        #expect(snapshot.ids.prefix(20) == ArraySlice(ids("m", 0..<10) + ids("n", 0..<10)))
        #expect(snapshot.gaps.map(\.afterRow) == [9, 19])
        try await expectTheScrollEndsOnTheServersList(feed, server, "after the rejections")
    }

    /// A local post on top of p0…p2 (the whole list), all four queued for removal; a refresh lists
    /// p0…p2 again, and the removals hide them. Rejected, each goes back, in order: the rows their
    /// removals named were removed too, down to the list's ends, not gone with a replaced list.
    @Test func rejectedRemovalsOfEveryRowPutEachBack() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        try await feed.insert(Post(id: "mine"), at: 0)
        for id in ["mine"] + ids("p", 0..<3) {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        await feed.refresh()
        #expect(await feed.snapshot.ids.isEmpty)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 4)
        #expect(await feed.snapshot.ids == ["mine"] + ids("p", 0..<3))
    }

    /// n0, n1 and a gap (n3, n4 missing) above p0…; n2 (above the gap) removed and confirmed, then
    /// n0 and n1 queued for removal: a refresh lists n0, n1 (hidden) and n3, so it went past the gap
    /// under them, whose rows its own gap continues: one gap, not two at one place. Rejected, n0 and
    /// n1 come back, and every refresh and scroll after ends on the server's list.
    @Test func aRefreshListingTheRowsWhoseRemovalsWaitAboveAGapGoesPastIt() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 3)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        server.items = .posts("n", 5) + server.items
        await feed.refresh()
        _ = try #require(try await feed.enqueue("hide", removing: "n2", argument: Revision(revision: 4)))
        server.items.removeAll { $0.id == "n2" }
        #expect(try await test.sendAllQueued(answering: .confirmed).count == 1)
        for id in ["n0", "n1"] {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        await feed.refresh()
        try await ReferenceModelTests.check(recorder, feed, test, "the refresh")
        #expect(await feed.snapshot.gaps.map(\.afterRow) == [0], "n3, then the one gap")
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 2)
        #expect(await feed.snapshot.ids.prefix(3) == ["n0", "n1", "n3"])
        try await expectTheScrollEndsOnTheServersList(feed, server, "after the rejections")
    }
}
