import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A queued edit is the user's intent for the server, not a row: a path that removes its row
/// without asking (a new cache version, a row that no longer decodes) leaves it queued, and the
/// outbox still sends it; an edit that must go is reported and kept in the outbox's history.
@Suite(.limit()) struct QueuedEditsOutliveTheirRowsTests {
    let test: FeedTestCase
    let list = ModelServer(.posts("p", 4), pageSize: 10)
    init() throws { test = try FeedTestCase() }

    /// Queues a revision of `id` on the refreshed feed of a store that then closes (a relaunch).
    func queueBeforeARelaunch(_ id: String, revision: Int = 9) async throws -> UUID {
        try #require(try await test.queueRevisionsBeforeARelaunch([id], revision: revision, source: list.source).first)
    }

    /// Registers a handler that files every send with `server` and answers `outcome`.
    func register(on store: FeedStore, _ server: MutationServer, outcome: OutboxOutcome = .confirmed) async {
        await store.outbox.register("revise", as: Revision.self) { edit in
            _ = server.receive("\(edit.itemID)=\(edit.argument.revision)", key: edit.idempotencyKey)
            return outcome
        }
    }

    @Test func aNewCacheVersionKeepsAQueuedEditAndItIsSentOnce() async throws {
        let key = try await queueBeforeARelaunch("p0")
        let store = try test.store()
        let feed = try test.feed(list.source, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 1), store: store)
        let events = await feed.events
        #expect(await feed.snapshot.rows.count == 0, "the old model's rows are gone")
        #expect(await store.outbox.status.count == 1, "the edit is still queued")

        let server = MutationServer()
        await register(on: store, server)
        await store.outbox.waitUntilEmpty()
        #expect(server.sentMutations == ["p0=9"])
        #expect(server.sendsByKey == [key: 1])
        await feed.refresh()
        #expect(await feed.snapshot.ids == list.items.map(\.id), "the new model's rows, no edit over them")
        #expect(try await feed.pendingEdits().isEmpty)
        #expect(await Self.kinds(of: events, until: .committed).contains(.pendingEditDropped) == false)
    }

    @Test func aRowThatNoLongerDecodesKeepsItsQueuedEditAndItIsSentOnce() async throws {
        let key = try await queueBeforeARelaunch("p1")
        try DatabaseQueue(path: test.path).write { store in
            try store.connection.execute(#"UPDATE item SET payload = '{"nope":1}' WHERE item_id = 'p1'"#)
        }
        let store = try test.store()
        let feed = try test.feed(list.source, store: store)
        let events = await feed.events
        #expect(await feed.snapshot.ids == ["p0", "p2", "p3"])
        let server = MutationServer()
        await register(on: store, server)
        await store.outbox.waitUntilEmpty()
        #expect(server.sendsByKey == [key: 1])
        #expect(server.sentMutations == ["p1=9"])
        let kinds = await Self.kinds(of: events, until: .undecodableRowsRemoved)
        #expect(kinds.contains(.pendingEditDropped) == false)
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    @Test func aQueuedEditWhosePayloadNoLongerDecodesIsStillSentOnce() async throws {
        let key = try await queueBeforeARelaunch("p2")
        try DatabaseQueue(path: test.path).write { store in
            try store.connection.execute(#"UPDATE pending_edit SET edited = '{"nope":1}'"#)
        }
        let store = try test.store()
        let feed = try test.feed(list.source, store: store)
        let events = await feed.events
        await feed.refresh()
        #expect(await feed.snapshot.rows.loadedItems == list.items, "the server's values, no edit over them")
        let server = MutationServer()
        await register(on: store, server)
        await store.outbox.waitUntilEmpty()
        #expect(server.sendsByKey == [key: 1])
        #expect(await Self.kinds(of: events, until: .committed).contains(.pendingEditDropped) == false)
    }

    @Test func anEditWhosePayloadStopsDecodingWhileItIsSentSettlesWithItsOutcome() async throws {
        let refused = RefusedIDs()
        let store = try test.store()
        let feed = try test.feed(list.source, store: store, codec: refused.codec)
        await feed.refresh()
        let held = StackedEditsSettleInOrderTests.HeldOutcome()
        let (called, call) = AsyncStream.makeStream(of: Int.self)
        // A failed send waits an hour: the second send's outcome must settle the edit, not a retry.
        await store.outbox.setRetryDelays(first: .seconds(3_600), maximum: .seconds(3_600))
        await store.outbox.register("revise", as: Revision.self) { edit in
            call.yield(edit.attempt)
            guard edit.attempt > 1 else { return .retryable(reason: "offline", retryAfter: nil) }
            return await held.outcome()
        }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 9)) { $0.revision = 9 }
        var calls = called.makeAsyncIterator()
        _ = await calls.next()
        await store.outbox.waitFor { $0.edits.first?.phase == .retryingLater }
        await store.outbox.resume()
        _ = await calls.next()
        // The app's model no longer reads the item while its edit is on its way; the server refuses it.
        refused.insert("p1")
        held.answer(.rejected(reason: "HTTP 409"))
        await store.outbox.waitUntilEmpty()
        #expect(try await feed.pendingEdits().isEmpty)
    }

    @Test func aRejectedEditWhoseRowLeftRollsNothingBack() async throws {
        _ = try await queueBeforeARelaunch("p2")
        let store = try test.store()
        let feed = try test.feed(list.source, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 1), store: store)
        await feed.refresh()
        let server = MutationServer()
        await register(on: store, server, outcome: .rejected(reason: "HTTP 409"))
        await store.outbox.waitUntilEmpty()
        #expect(server.sentMutations == ["p2=9"])
        #expect(await feed.snapshot.rows.loadedItems == list.items, "the server's rows, untouched")
        #expect(try test.postsOnDisk() == list.items)
    }

    @Test func anItemsNewEditGoesAfterTheEditItsOldRowLeft() async throws {
        let first = try await queueBeforeARelaunch("p0", revision: 5)
        let store = try test.store()
        let feed = try test.feed(list.source, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 1), store: store)
        await feed.refresh()
        let second = try #require(
            try await feed.enqueue("revise", id: "p0", argument: Revision(revision: 6)) { $0.revision = 6 })
        #expect(await feed.snapshot.rows[0]?.revision == 6, "the new edit shows; the detached one does not")
        #expect(await store.outbox.status.edits.map(\.idempotencyKey) == [first, second])

        let server = MutationServer()
        await register(on: store, server)
        await store.outbox.waitUntilEmpty()
        #expect(server.sentMutations == ["p0=5", "p0=6"], "in the order they were made")
        #expect(server.sendsByKey == [first: 1, second: 1])
        #expect(await feed.snapshot.rows[0]?.revision == 6, "confirmed: shown until the next server copy")
    }

    @Test func aClosureEditOnARowANewCacheVersionClearsIsDroppedAndReported() async throws {
        let store = try test.store()
        let feed = try test.feed(list.source, store: store)
        await feed.refresh()
        try DatabaseQueue(path: test.path).write { store in
            let record = try #require(try store.feed(key: "home"))
            let stored = try #require(try store.items(withIDs: ["p3"], in: record)["p3"])
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: "p3", kind: .update, base: stored.payload,
                    edited: try JSONEncoder().encode(Post(id: "p3", revision: 4)), createdAt: Date()),
                in: record)
        }
        store.close()
        let reopened = try test.feed(list.source, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 1))
        let events = await reopened.events
        var dropped: [FeedEvent] = []
        for await event in events where event.kind == .pendingEditDropped {
            dropped.append(event)
            break
        }
        #expect(dropped.first?.itemIDs == ["p3"])
        #expect(dropped.first?.error?.message.contains("cache version") == true)
        #expect(try await reopened.pendingEdits().isEmpty)
    }

    /// The kinds of `events` up to the first of `last`, included.
    static func kinds(of events: AsyncStream<FeedEvent>, until last: FeedEvent.Kind) async -> [FeedEvent.Kind] {
        var kinds: [FeedEvent.Kind] = []
        for await event in events {
            kinds.append(event.kind)
            if event.kind == last { break }
        }
        return kinds
    }
}
