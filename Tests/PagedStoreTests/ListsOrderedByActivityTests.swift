import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A list whose items move to the top when they change (``FeedPolicy/ItemOrder/byActivity``): a row
/// the feed has, listed alone under new items, may have moved up from above items the feed never
/// had. Taken for the place where the page joins the feed, it skipped those items for good.
@Suite(.limit(minutes: 2)) struct ListsOrderedByActivityTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// Checks every change `recorder` saw, then scrolls `feed` to its end and expects the server's
    /// list.
    private func expectTheServersList(
        _ recorder: SnapshotRecorder<Post>, _ feed: Feed<Post>, _ server: TimelineModel, after step: String
    ) async throws {
        try await ReferenceModelTests.check(recorder, feed, test, "after \(step)")
        try await scrollToTheEnd(feed, "after \(step)")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// s1010…s1006 cached; three posts published, then s1010 bumped, then four more: the server lists
    /// s1018…s1015, s1010, then s1013…s1011, which the feed never had.
    private func bumpedUnderNewPosts(
        _ policy: FeedPolicy
    ) async throws -> (feed: Feed<Post>, server: TimelineModel) {
        let (feed, server, _) = try await test.refreshedTimeline(count: 10, policy: policy)
        #expect(await feed.snapshot.ids == ["s1010", "s1009", "s1008", "s1007", "s1006"])
        server.publish(3)
        server.bump("s1010")
        server.publish(4)
        return (feed, server)
    }

    /// The first page is s1018…s1015 then s1010, the feed's top row: under new posts, it proves no
    /// overlap, and the rows go on top over a gap whose fill finds s1013…s1011.
    @Test func aFirstPageEndingOnTheTopRowLeavesAGapUnderIt() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, itemOrder: .byActivity)
        let (feed, server) = try await bumpedUnderNewPosts(policy)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids.prefix(5) == ["s1018", "s1017", "s1016", "s1015", "s1010"])
        #expect(snapshot.gaps.map(\.afterRow) == [4])
        try await expectTheServersList(recorder, feed, server, after: "the refresh")
    }

    /// A gap over s1010…s1006 (five newer posts on top of it), whose fill lists s1018…s1015 and
    /// ends on s1010: the gap stays under s1010, and the next fill finds s1013…s1011.
    @Test func aFillEndingOnTheFarSidesTopRowKeepsTheGapUnderIt() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, itemOrder: .byActivity)
        let (feed, server) = try await bumpedUnderNewPosts(policy)
        server.publish(5)
        await feed.refresh()
        #expect(await feed.snapshot.ids.count == 10)
        let recorder = await SnapshotRecorder(feed)
        let gap = try #require(await feed.snapshot.gaps.first)
        await feed.loadGap(gap)
        let snapshot = await feed.snapshot
        #expect(Array(snapshot.ids[5..<10]) == ["s1018", "s1017", "s1016", "s1015", "s1010"])
        #expect(snapshot.gaps.map(\.afterRow) == [9], "the gap under s1010, for what came before its bump")
        try await expectTheServersList(recorder, feed, server, after: "the fill")
    }

    /// s1005…s1001 cached; seven posts, then s1001 and s1005 bumped, then nine more: the fill under
    /// the nine lists s1005 and s1001 in their cached order, then s1012…s1006, which the feed never
    /// had. s1004…s1002 are under those, not deleted: the two rows move up with the page, and the
    /// gap stays under it for the next fill to reach them.
    @Test func aFillListingTwoBumpedRowsInTheirOrderOverNewItemsProvesNothingBetweenThem() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, itemOrder: .byActivity)
        let (feed, server, _) = try await test.refreshedTimeline(count: 5, pageSize: 9, policy: policy)
        server.publish(7)
        server.bump("s1001")
        server.bump("s1005")
        server.publish(9)
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        let gap = try #require(await feed.snapshot.gaps.first)
        await feed.loadGap(gap)
        let snapshot = await feed.snapshot
        #expect(snapshot.ids.prefix(18) == server.items.prefix(18).map(\.id)[...])
        #expect(snapshot.gaps.map(\.afterRow) == [17], "the gap under s1006, over s1004…s1002")
        try await expectTheServersList(recorder, feed, server, after: "the fill")
    }

    /// s1005…s1001, the whole list; two posts, then s1001…s1005 bumped in turn, then six more: the
    /// fill under the six lists the feed's rows in their order, then s1007 and s1006, which were
    /// published before the bumps. Nothing lies under the list's last row: the rows moved up over
    /// them, and the fill writes them.
    @Test func aFillListingTheWholeListBumpedInItsOrderWritesWhatItListsUnder() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, itemOrder: .byActivity)
        let (feed, server, _) = try await test.refreshedTimeline(count: 5, pageSize: 7, policy: policy)
        #expect(await feed.snapshot.nextPage == .endReached)
        server.publish(2)
        for serial in 1001...1005 { server.bump("s\(serial)") }
        server.publish(6)
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        let gap = try #require(await feed.snapshot.gaps.first)
        await feed.loadGap(gap)
        try await expectTheServersList(recorder, feed, server, after: "the fill")
    }

    /// s1010…s1007 over a gap (s1006, s1005) over s1004…s1001, the four on top hidden by queued
    /// removals; four posts, then s1004 bumped. The refresh lists s1004 first, then the new posts:
    /// it may have moved up from under the hidden rows and the gap, which stays. Rejected, the
    /// four come back over it, and the fill that reaches them leaves it for the next.
    @Test func aRefreshListingTheTopRowFirstKeepsAGapUnderHiddenRowsAboveIt() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, itemOrder: .byActivity)
        let (feed, server, _) = try await test.refreshedTimeline(count: 4, pageSize: 4, policy: policy)
        server.publish(6)
        await feed.refresh()
        #expect(await feed.snapshot.gaps.map(\.afterRow) == [3])
        for id in ["s1010", "s1009", "s1008", "s1007"] {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        server.publish(4)
        server.bump("s1004")
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 4)
        await feed.waitUntilIdle()
        #expect(await feed.snapshot.gaps.count == 2, "the refresh's gap, and the one under s1007")
        try await expectTheServersList(recorder, feed, server, after: "the answers")
    }

    /// s1022…s1016 cached, the four on top hidden by queued removals; ten posts, s1022 bumped, five
    /// more, then s1018 bumped. The newer page does not reach the head, and the first page lists
    /// s1018, s1038…s1034, then s1022, with a gap under it for s1032…s1026, which its fill writes.
    /// Rejected, s1022 goes back over them, where the first page listed it: no later page lists it
    /// to put it right.
    @Test func aRejectedItemAFirstPageListedOverAGapGoesBackOverTheGapsFill() async throws {
        let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: .keepGap, refreshMode: .newerThanHead(maxPages: 1),
            itemOrder: .byActivity)
        let (feed, server, _) = try await test.refreshedTimeline(count: 22, pageSize: 7, policy: policy)
        for id in ["s1022", "s1021", "s1020", "s1019"] {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        server.publish(10)
        server.bump("s1022")
        server.publish(5)
        server.bump("s1018")
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        if let gap = await feed.snapshot.gaps.first { await feed.loadGap(gap) }
        #expect(await feed.snapshot.gaps.isEmpty)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 4)
        await feed.waitUntilIdle()
        try await expectTheServersList(recorder, feed, server, after: "the answers")
    }

    /// By the newer cursor (s1010's): s1008 bumped, then four posts published. The page lists
    /// s1015…s1012, then s1008, newer than the cursor since its bump. Every item goes on top, s1008
    /// moving up with them, and no row is proved deleted: s1010 and s1009 stay. Ordered by
    /// creation, s1008 is taken for the head again, and s1010 and s1009 for deleted.
    @Test func aNewerPageListingABumpedRowAfterNewOnesPutsAllOnTop() async throws {
        let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: .keepGap, refreshMode: .newerThanHead(maxPages: 3),
            itemOrder: .byActivity)
        let (feed, server, source) = try await test.refreshedTimeline(count: 10, policy: policy)
        server.bump("s1008")
        server.publish(4)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        #expect(source.requests.contains(.newerThan(cursor: "s1010")), "the refresh went by the newer cursor")
        #expect(await feed.snapshot.ids == server.items.prefix(9).map(\.id))
        try await expectTheServersList(recorder, feed, server, after: "the refresh")
    }

    /// s1008 hidden by its queued removal; one post, s1008 bumped, one more: the newer page lists
    /// s1013, s1008, s1011, and s1008 goes on top with them, hidden. Rejected, it goes back there,
    /// where the server lists it, not to its old place: no newer page lists it again to put it right.
    @Test(arguments: [FeedPolicy.ItemOrder.fixed, .byActivity])
    func aHiddenItemANewerPageListsOnTopGoesBackThere(order: FeedPolicy.ItemOrder) async throws {
        let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: .keepGap, refreshMode: .newerThanHead(maxPages: 3), itemOrder: order)
        let (feed, server, _) = try await test.refreshedTimeline(count: 10, policy: policy)
        _ = try #require(try await feed.enqueue("hide", removing: "s1008", argument: Revision(revision: 4)))
        server.publish(1)
        server.bump("s1008")
        server.publish(1)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        #expect(await !feed.snapshot.ids.contains("s1008"))
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        await feed.waitUntilIdle()
        try await expectTheServersList(recorder, feed, server, after: "the answer")
    }

    /// A policy recorded before the order existed reads as ``FeedPolicy/ItemOrder/fixed``.
    @Test func aPolicyRecordedWithoutAnOrderIsFixed() throws {
        let recorded = Data(#"{"gapPolicy":"keepGap","windowSize":300}"#.utf8)
        let policy = try JSONDecoder().decode(FeedPolicy.self, from: recorded)
        #expect(policy.itemOrder == .fixed)
        #expect(policy.gapPolicy == .keepGap)
        let activity = FeedPolicy(itemOrder: .byActivity)
        #expect(try JSONDecoder().decode(FeedPolicy.self, from: JSONEncoder().encode(activity)) == activity)
    }

    /// A whole list cached to its end, s1002 and s1001 (the bottom one hidden by a queued removal),
    /// or s1001 alone; twelve posts published, then the top row bumped over them. The first page
    /// lists that row and the first new posts: it rewrites the list down to its end, and the list
    /// goes on from the page's cursor. Kept as reached, the rest of the new posts were never
    /// fetched; a hidden bottom item, rejected, goes back where the pages list it.
    @Test(arguments: [(1, false), (1, true), (2, false), (2, true)])
    func aPageRewritingTheListToItsEndGoesOnFromItsCursor(count: Int, hidingTheBottom: Bool) async throws {
        let server = TimelineModel(count: count, pageSize: 5, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, itemOrder: .byActivity)
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        await feed.loadNextPage()
        let cached = await feed.snapshot.ids
        #expect(cached == server.items.map(\.id))
        let top = try #require(cached.first)
        if hidingTheBottom, let bottom = cached.last {
            _ = try #require(try await feed.enqueue("hide", removing: bottom, argument: Revision(revision: 4)))
        }
        server.publish(12)
        server.bump(top)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        if hidingTheBottom {
            #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
            await feed.waitUntilIdle()
        }
        try await expectTheServersList(recorder, feed, server, after: "the refresh")
    }

    /// The whole list cached, then hidden items among the rows a first page rewrites to the list's
    /// end: s1002 between s1003 and s1001, or s1004 above the top and s1001 at the bottom; twelve
    /// posts published, then the rows left bumped over them. The page replaced the list, and every
    /// hidden item's place with it: rejected before the next page or after the scroll, each goes
    /// back where the pages list it. With only the places under the rewritten rows lost, s1002 went
    /// back under the first page, above the next one, and s1004 between the page's rows, where the
    /// next refresh proved it deleted.
    @Test(
        arguments: [(3, ["s1002"], ["s1001", "s1003"]), (4, ["s1004", "s1001"], ["s1002", "s1003"])],
        [false, true])
    func hiddenItemsAmongRowsARewriteToTheEndReplacesGoBackWhereThePagesListThem(
        scenario: (count: Int, hidden: [String], bumped: [String]), afterTheScroll: Bool
    ) async throws {
        let server = TimelineModel(count: scenario.count, pageSize: 5, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, itemOrder: .byActivity)
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        #expect(await feed.snapshot.ids == server.items.map(\.id))
        for id in scenario.hidden {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        server.publish(12)
        for id in scenario.bumped { server.bump(id) }
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        if afterTheScroll { try await scrollToTheEnd(feed, "before the answers") }
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == scenario.hidden.count)
        await feed.waitUntilIdle()
        try await ReferenceModelTests.check(recorder, feed, test, "after the answers")
        try await scrollToTheEnd(feed, "after the answers", refreshingFirst: true)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// s1005…s1001 cached to the end, s1005 (on top) hidden; twelve posts, then s1003 and s1004
    /// bumped: the first page lists s1004, s1003 and new posts, with a gap under them. Both rows
    /// left the place under s1005, which now names s1002, the first row under them: rejected, it
    /// goes back under the gap, where the fill lists it. Named by s1003, the row under s1004's old
    /// place, it went back between the page's rows, where the next refresh proved it deleted.
    @Test(arguments: [false, true]) func aHiddenPostOverRowsBumpedInTheirOrderGoesBackUnderThem(
        answeredAfterTheScroll: Bool
    ) async throws {
        let server = TimelineModel(count: 5, pageSize: 5, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, itemOrder: .byActivity)
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        try await scrollToTheEnd(feed, "cached")
        _ = try #require(try await feed.enqueue("hide", removing: "s1005", argument: Revision(revision: 4)))
        server.publish(12)
        server.bump("s1003")
        server.bump("s1004")
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        if answeredAfterTheScroll { try await scrollToTheEnd(feed, "before the answer") }
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        await feed.waitUntilIdle()
        try await ReferenceModelTests.check(recorder, feed, test, "after the answer")
        try await scrollToTheEnd(feed, "after the answer", refreshingFirst: true)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }
}
