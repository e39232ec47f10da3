import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A page that lists the rows a pending removal named around its item, and not the item between
/// them, proves the place wrong (the item moved, or the server deleted it). The removal keeps the
/// place as the best one known, so that a failed or rejected removal shows the item again even
/// when no page writes it elsewhere; an item a page brings back anywhere takes its new place.
@Suite(.limit(minutes: 2)) struct DisprovedRemovalPlacesTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// p0…p29 by pages of 10, first page cached; `newPosts` (15) new posts on top, refresh: n0…n9,
    /// a gap, p0…p9.
    func gapTimeline(newPosts: Int = 15) async throws -> (feed: Feed<Post>, server: ModelServer) {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        server.items = .posts("n", newPosts) + server.items
        await feed.refresh()
        return (feed, server)
    }

    func move(_ id: String, after other: String, in server: ModelServer) throws {
        var items = server.items
        let moved = try #require(items.first { $0.id == id })
        items.removeAll { $0.id == id }
        let anchor = try #require(items.firstIndex { $0.id == other })
        items.insert(moved, at: anchor + 1)
        server.items = items
    }

    /// Checks that the rolled-back removal's p1 shows right below p3, where the server lists it, and
    /// still does after a refresh and a scroll to the end.
    /// - Returns: The ids after the scroll.
    @discardableResult
    func expectP1ShownBelowP3(_ feed: Feed<Post>, _ comment: String) async throws -> [String] {
        for moment in [comment, "\(comment), then a refresh and a scroll to the end"] {
            if moment != comment {
                await feed.refresh()
                try await scrollToTheEnd(feed)
            }
            let ids = await feed.snapshot.ids
            expectSound(ids, moment)
            #expect(ids.contains("p1"), "\(moment): the item must show again: the server lists it")
            #expect(ids.firstIndex(of: "p1") == ids.firstIndex(of: "p3").map { $0 + 1 }, "\(moment): \(ids)")
        }
        return await feed.snapshot.ids
    }

    func expectSound(_ ids: [String], _ comment: String) {
        #expect(Set(ids).count == ids.count, "no id twice: \(comment) \(ids)")
    }

    /// The gap's fill reaches p0 (the far side) and lists p1 below p3: the fill inserts only the
    /// items above p0, so p1 is listed by the page but never written. The call fails: p1 shows
    /// again where the page listed it, between p3 and p4.
    @Test func closureRemovalDisplacedByAGapFillThatDoesNotInsertTheItemThenRolledBack() async throws {
        let (feed, server) = try await gapTimeline()
        #expect(await feed.snapshot.ids == (0..<10).map { "n\($0)" } + (0..<10).map { "p\($0)" })
        let removal = await HeldRefusedEdit(removing: "p1", from: feed)
        try move("p1", after: "p3", in: server)  // …, n14, p0, p2, p3, p1, p4, …
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        let list = await ObservedList(feed)
        await removal.refuse()
        let end = try await expectP1ShownBelowP3(feed, "after rollback")
        #expect(list.rejectedChanges.isEmpty)
        #expect(try test.idsOnDisk() == end)
    }

    /// Two removals next to each other (the later one names the earlier one's item as its neighbour,
    /// or the earlier one names the later one's, depending on the order): one gap fill lists p1
    /// below p3 and p2 below p4, both between rows the feed has. Each reaches its rows through the
    /// other's place, so both move; both calls fail, and each item shows where the server lists it.
    @Test(arguments: [["p1", "p2"], ["p2", "p1"]])
    func adjacentRemovalsBothDisplacedByOneGapFillThenRolledBack(removedInOrder order: [String]) async throws {
        let (feed, server) = try await gapTimeline(newPosts: 14)
        var removals: [HeldRefusedEdit] = []
        for id in order { removals.append(await HeldRefusedEdit(removing: id, from: feed)) }
        try move("p1", after: "p3", in: server)
        try move("p2", after: "p4", in: server)  // the fill: n10…n13, p0, p3, p1, p4, p2, p5
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        let list = await ObservedList(feed)
        for removal in removals { await removal.refuse() }
        let ids = await feed.snapshot.ids
        expectSound(ids, "after both rollbacks")
        #expect(Array(ids.drop { $0 != "p0" }.prefix(7)) == ["p0", "p3", "p1", "p4", "p2", "p5", "p6"], "\(ids)")
        #expect(list.rejectedChanges.isEmpty)
        #expect(try test.idsOnDisk() == ids)
    }

    /// Two removed items the server moved next to each other: the fill lists p1 and p2 together
    /// between p3 and p4, so each names the other as its neighbour there; rolled back in either
    /// order, they show as the server lists them.
    @Test(arguments: [["p1", "p2"], ["p2", "p1"]])
    func removedItemsListedNextToEachOtherTakeThatPlaceTogether(rolledBackInOrder order: [String]) async throws {
        let (feed, server) = try await gapTimeline(newPosts: 14)
        var removals: [String: HeldRefusedEdit] = [:]
        for id in ["p1", "p2"] { removals[id] = await HeldRefusedEdit(removing: id, from: feed) }
        try move("p1", after: "p3", in: server)
        try move("p2", after: "p1", in: server)  // the fill: n10…n13, p0, p3, p1, p2, p4, p5
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        for id in order { await removals[id]?.refuse() }
        let ids = await feed.snapshot.ids
        expectSound(ids, "after both rollbacks")
        #expect(Array(ids.drop { $0 != "p0" }.prefix(6)) == ["p0", "p3", "p1", "p2", "p4", "p5"], "\(ids)")
        #expect(try test.idsOnDisk() == ids)
    }

    /// A refresh whose first page lists p1 below p3, and both rows it was removed from: the page
    /// brings p1 back, the pending removal hides it again and takes the place the page lists. The
    /// call fails: p1 shows below p3.
    @Test func closureRemovalOfAnItemARefreshListsElsewhereThenRolledBack() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        let removal = await HeldRefusedEdit(removing: "p1", from: feed)
        try move("p1", after: "p3", in: server)  // p0, p2, p3, p1, p4, …
        await feed.refresh()
        #expect(await !feed.snapshot.ids.contains("p1"), "still removed")
        await removal.refuse()
        try await expectP1ShownBelowP3(feed, "after rollback")
    }

    /// Three removals next to each other, p1, p2, p3; the server deletes p2 or moves it below p4, and
    /// the fill lists p0, p1, p3, p4. p2's removal is proved through the others' places; the removals
    /// that named p2 take the rows p2's removal named, so p1 and p3 keep their order: rolled back
    /// with p3 first, they show as the server lists them, also after a refresh and a scroll.
    @Test(arguments: [false, true])
    func theMiddleOfThreeAdjacentRemovalsProvedLeavesTheOthersInOrder(p2Moved: Bool) async throws {
        let (feed, server) = try await gapTimeline(newPosts: 14)
        var removals: [String: HeldRefusedEdit] = [:]
        for id in ["p1", "p2", "p3"] { removals[id] = await HeldRefusedEdit(removing: id, from: feed) }
        if p2Moved {
            try move("p2", after: "p4", in: server)  // the fill: n10…n13, p0, p1, p3, p4, p2, p5
        } else {
            server.items.removeAll { $0.id == "p2" }  // the fill: n10…n13, p0, p1, p3, p4, p5, p6
        }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        for id in ["p3", "p1", "p2"] { await removals[id]?.refuse() }
        for moment in ["after the rollbacks", "after a refresh and a scroll to the end"] {
            if moment != "after the rollbacks" {
                await feed.refresh()
                try await scrollToTheEnd(feed)
            }
            let ids = await feed.snapshot.ids
            expectSound(ids, moment)
            let serverOrder = server.items.map(\.id).filter(ids.contains)
            #expect(ids.filter(serverOrder.contains) == serverOrder, "\(moment): \(ids)")
            #expect(ids.allSatisfy(Set(server.items.map(\.id)).contains), "\(moment): none the server lacks: \(ids)")
        }
        #expect(try test.idsOnDisk() == (await feed.snapshot.ids))
    }

    /// The same with a queued removal that the server rejects.
    @Test func queuedRemovalDisplacedByAGapFillThatDoesNotInsertTheItemThenRejected() async throws {
        let (feed, server) = try await gapTimeline()
        _ = try #require(try await feed.enqueue("hide", removing: "p1", argument: Revision(revision: 4)))
        try move("p1", after: "p3", in: server)
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        // The rejection is another store's write: the feed shows it when it follows it.
        _ = await feed.firstSnapshot { $0.ids.contains("p1") }
        try await expectP1ShownBelowP3(feed, "after reject")
    }

    /// A closure removal whose item the page does not list at all (the server deleted it) is settled:
    /// its call's failure brings nothing back.
    @Test func closureRemovalOfAnItemTheServerDeletedIsSettled() async throws {
        let (feed, server) = try await gapTimeline()
        let removal = await HeldRefusedEdit(removing: "p1", from: feed)
        server.items.removeAll { $0.id == "p1" }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        await removal.refuse()
        #expect(await !feed.snapshot.ids.contains("p1"))
    }

    /// A queued removal whose item moved down into rows the feed has cached already (below the
    /// gap's fill, above the bottom): the fill lists p0 and p2 without p1, and no page lists p1
    /// again. The rejection shows it at the place it was removed from: never lost.
    @Test func queuedRemovalOfAnItemThatMovedIntoCachedRowsThenRejectedShowsItAgain() async throws {
        let (feed, server) = try await gapTimeline()
        _ = try #require(try await feed.enqueue("hide", removing: "p1", argument: Revision(revision: 4)))
        try move("p1", after: "p7", in: server)  // …, n14, p0, p2, …, p7, p1, p8, p9
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        // The rejection is another store's write: the feed shows it when it follows it.
        _ = await feed.firstSnapshot { $0.ids.contains("p1") }
        await feed.refresh()
        try await scrollToTheEnd(feed)
        let end = await feed.snapshot.ids
        expectSound(end, "end")
        #expect(end.contains("p1"), "lost for good: the server lists p1 after p7, the feed never shows it again")
    }

    /// Page-numbered list: the next page repeats p6 and p9 around the removed p8, and lists p8 lower
    /// (it moved down). The closure's call fails: p8 goes where the server has it, once.
    @Test func closureRemovalDisplacedByAPageNumberedNextPageGoesWhereThePageListsIt() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.pageNumberSource)
        await feed.refresh()
        let removal = await HeldRefusedEdit(removing: "p8", from: feed)
        try move("p8", after: "p11", in: server)
        server.items = .posts("n", 4) + server.items  // page 2: p6, p9, p10, p11, p8, p12…
        await feed.loadNextPage()
        #expect(await !feed.snapshot.ids.contains("p8"))
        let list = await ObservedList(feed)
        await removal.refuse()
        let ids = await feed.snapshot.ids
        expectSound(ids, "after rollback")
        let at = try #require(ids.firstIndex(of: "p8"))
        #expect(ids[at - 1] == "p11")
        #expect(list.rejectedChanges.isEmpty)
        #expect(try test.idsOnDisk() == ids)
    }

    /// Queued update then queued removal of p8; p8 moves down; a page-numbered next page displaces
    /// the removal; the update is rejected, then the removal.
    @Test(arguments: [0, 1]) func aStackDisplacedThenRejected(at rejected: Int) async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.pageNumberSource)
        await feed.refresh()
        let k1 = try #require(
            try await feed.enqueue("revise", id: "p8", argument: Revision(revision: 3)) { $0.revision = 3 })
        let k2 = try #require(try await feed.enqueue("hide", removing: "p8", argument: Revision(revision: 4)))
        try move("p8", after: "p11", in: server)
        server.items = .posts("n", 4) + server.items
        await feed.loadNextPage()
        let list = await ObservedList(feed)
        let sent = Locked<[UUID]>([])
        let sender = try test.store()
        for kind in ["revise", "hide"] {
            await sender.outbox.register(kind, as: Revision.self) { edit in
                sent.append(edit.idempotencyKey)
                return edit.idempotencyKey == [k1, k2][rejected] ? .rejected(reason: "no") : .confirmed
            }
        }
        await sender.outbox.waitUntilEmpty()
        // Another store's writes: a rejected removal shows p8 when the feed follows it; a confirmed
        // one (its update rejected under it) changes no row the feed shows.
        if rejected == 1 { _ = await feed.firstSnapshot { $0.ids.contains("p8") } }
        let ids = await feed.snapshot.ids
        expectSound(ids, "after")
        #expect(list.rejectedChanges.isEmpty)
        #expect(try test.idsOnDisk() == ids)
        if rejected == 1 {
            let at = try #require(ids.firstIndex(of: "p8"), "rejected removal: p8 shows again")
            #expect(ids[at - 1] == "p11")
        }
    }

    /// The gap filled from its bottom (newer than p0): the page n5…n14 reaches n9 on the far side and
    /// lists n7 below n8 (moved down): n7 is not inserted (above the rows reached). Call fails.
    @Test func closureRemovalDisplacedByAGapFillFromTheBottomThenRolledBack() async throws {
        let (feed, server) = try await gapTimeline()
        let removal = await HeldRefusedEdit(removing: "n7", from: feed)
        try move("n7", after: "n8", in: server)  // n5, n6, n8, n7, n9, n10, …
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: .bottom)
        await removal.refuse()
        let ids = await feed.snapshot.ids
        expectSound(ids, "after rollback")
        #expect(ids.contains("n7"), "the failed removal's item must show again: the server lists it")
    }

    /// Relaunch between the displacement and the rejection: a new store on the same file.
    @Test func queuedRemovalDisplacedThenRelaunchedThenRejected() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do {
            let feed = try test.feed(server.pageNumberSource)
            await feed.refresh()
            _ = try #require(try await feed.enqueue("hide", removing: "p8", argument: Revision(revision: 4)))
            try move("p8", after: "p11", in: server)
            server.items = .posts("n", 4) + server.items
            await feed.loadNextPage()
        }
        let feed = try test.feed(server.pageNumberSource)
        let list = await ObservedList(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        _ = await feed.firstSnapshot { $0.ids.contains("p8") }
        let ids = await feed.snapshot.ids
        expectSound(ids, "after")
        let at = try #require(ids.firstIndex(of: "p8"))
        #expect(ids[at - 1] == "p11")
        #expect(list.rejectedChanges.isEmpty)
    }
}
