import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A page that lists the rows around a removed item, and not the item, proves the server's list no
/// longer has it there. A removal made with a closure is settled by that; a queued removal is the
/// user's intent for a server that has not had it yet (the item may only have moved): it stays
/// queued, keeps the item hidden and is sent.
@Suite(.limit(minutes: 2)) struct QueuedRemovalsOutliveDeletionProofsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// The timeline with its gap filled once (…, n24, p0, p1, p2, …, a gap above p10), and `ids`'
    /// edits queued: "revise" updates, then "hide" removals.
    func timelineWithQueuedEdits(
        revising revised: [String] = [], hiding hidden: [String]
    ) async throws -> (
        feed: Feed<Post>, server: ModelServer, keys: [UUID]
    ) {
        let (feed, server, _) = try await test.timelineWithAGap()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        var keys: [UUID] = []
        for id in revised {
            keys.append(
                try #require(
                    try await feed.enqueue("revise", id: id, argument: Revision(revision: 3)) { $0.revision = 3 }))
        }
        for id in hidden {
            keys.append(try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4))))
        }
        #expect(try await test.store().outbox.status.edits.map(\.idempotencyKey) == keys)
        return (feed, server, keys)
    }

    func droppedKeys() throws -> [String?] {
        try DatabaseQueue(path: test.path).read { try $0.droppedQueuedEdits() }.map(\.idempotencyKey)
    }

    @Test func aQueuedRemovalWhoseItemAPageProvesDeletedIsStillSentOnce() async throws {
        let (feed, server, keys) = try await timelineWithQueuedEdits(hiding: ["p1"])
        server.items.removeAll { $0.id == "p1" }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))  // …, n24, p0, p2, p3…
        #expect(try await test.store().outbox.status.edits.map(\.idempotencyKey) == keys)
        #expect(await !feed.snapshot.ids.contains("p1"))

        #expect(try await test.sendAllQueued() == keys)
        #expect(try droppedKeys().isEmpty, "nothing was dropped unsent")
        #expect(await !feed.snapshot.ids.contains("p1"))
    }

    @Test func aQueuedRemovalOfAnItemThatMovedKeepsItHiddenWhenARefreshListsItOnTop() async throws {
        let (feed, server, keys) = try await timelineWithQueuedEdits(hiding: ["p1"])
        let bumped = try #require(server.items.first { $0.id == "p1" })
        server.items = [bumped] + server.items.filter { $0.id != "p1" }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))  // …, n24, p0, p2, p3…
        await feed.refresh()  // p1, n0, n1…
        #expect(await feed.snapshot.ids.first == "n0", "the user's removal still hides the post")
        #expect(try await test.store().outbox.status.edits.map(\.idempotencyKey) == keys)
    }

    @Test func ofAStackOnAnItemAPageProvesDeletedEveryQueuedEditIsSentInOrder() async throws {
        let (feed, server, keys) = try await timelineWithQueuedEdits(revising: ["p1"], hiding: ["p1"])
        server.items.removeAll { $0.id == "p1" }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        #expect(try await test.sendAllQueued() == keys)
        #expect(try droppedKeys().isEmpty)
    }

    @Test func aRejectedQueuedRemovalOfAnItemAPageProvedDeletedPutsTheServersRowBack() async throws {
        let (feed, server, _) = try await timelineWithQueuedEdits(hiding: ["p1"])
        server.items.removeAll { $0.id == "p1" }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        let list = await ObservedList(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        let restored = await list.firstSnapshot(within: .seconds(60)) { $0.ids.contains("p1") }
        let ids = try #require(restored, "the list never showed the row back").ids
        let p0 = try #require(ids.firstIndex(of: "p0"))
        #expect(Array(ids[p0...].prefix(3)) == ["p0", "p1", "p2"], "the rejection restores the row where it was")
        #expect(list.rejectedChanges.isEmpty)
    }

    /// The item moves below the next page's first rows: the gap's fill lists the rows it was removed
    /// from without it, and the next page lists it lower down.
    @Test func aRejectedQueuedRemovalOfAnItemThatMovedDownGoesBackWhereThePagesListIt() async throws {
        let (feed, server, _) = try await timelineWithQueuedEdits(hiding: ["p1"])
        let moved = try #require(server.items.first { $0.id == "p1" })
        server.items.removeAll { $0.id == "p1" }
        let p15 = try #require(server.items.firstIndex { $0.id == "p15" })
        server.items.insert(moved, at: p15 + 1)
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))  // …, n24, p0, p2, p3…
        await feed.loadNextPage()  // p10…p15, p1, p16…
        #expect(await !feed.snapshot.ids.contains("p1"), "the user's removal still hides it")
        let list = await ObservedList(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        let restored = await list.firstSnapshot(within: .seconds(60)) { $0.ids.contains("p1") }
        let ids = try #require(restored, "the list never showed the row back").ids
        let p15Row = try #require(ids.firstIndex(of: "p15"))
        #expect(Array(ids[p15Row...].prefix(3)) == ["p15", "p1", "p16"], "back where the server's list has it")
        #expect(list.rejectedChanges.isEmpty)
    }

    @Test func aPullToRefreshThatNoLongerListsTheItemKeepsItsQueuedRemoval() async throws {
        let server = ModelServer(.posts("p", 20), pageSize: 10)
        let (store, feed) = try await test.openPosts(server)
        let key = try #require(try await feed.enqueue("hide", removing: "p3", argument: Revision(revision: 1)))
        server.items.removeAll { $0.id == "p3" }
        await feed.refresh()
        #expect(await store.outbox.status.edits.map(\.idempotencyKey) == [key])
        #expect(try droppedKeys().isEmpty)
    }
}
