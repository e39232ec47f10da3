import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Queued edits whose rows left (detached): what a new edit of the item, a relaunch, a
/// second store or a hand-edited file does to them.
@Suite(.limit()) struct DetachedQueuedEditsTests {
    let test: FeedTestCase
    let list = ModelServer(.posts("p", 4), pageSize: 10)
    init() throws { test = try FeedTestCase() }

    /// Queues the insert of a local post `id` on the refreshed feed of a store that then closes.
    func queueAnInsertBeforeARelaunch(_ id: String) async throws -> UUID {
        let store = try test.store()
        let feed = try test.feed(list.source, store: store)
        await feed.refresh()
        let key = try await feed.enqueue(
            "create", inserting: Post(id: id, revision: 1), at: 0, argument: Revision(revision: 1))
        store.close()
        return key
    }

    /// Registers a handler of `kind` that files every send with `server` and answers `outcome`.
    func register(
        _ kind: String, on store: FeedStore, _ server: MutationServer, outcome: OutboxOutcome = .confirmed
    ) async {
        await store.outbox.register(kind, as: Revision.self) { edit in
            _ = server.receive("\(edit.change):\(edit.itemID)=\(edit.argument.revision)", key: edit.idempotencyKey)
            return outcome
        }
    }

    @Test func anInsertOfAnItemWhoseDetachedEditWaitsKeepsTheDetachedEditQueued() async throws {
        let detached = try await queueAnInsertBeforeARelaunch("n1")
        let store = try test.store()
        let feed = try test.feed(list.source, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 1), store: store)
        await feed.refresh()
        #expect(await store.outbox.status.edits.map(\.idempotencyKey) == [detached], "detached, still queued")

        // The app inserts its draft again (it keeps its own copy of what the user wrote).
        let again = try await feed.enqueue(
            "create", inserting: Post(id: "n1", revision: 2), at: 0, argument: Revision(revision: 2))
        #expect(
            await store.outbox.status.edits.map(\.idempotencyKey) == [detached, again],
            "the detached edit was never sent: a new edit of its item goes after it, not over it")
        let server = MutationServer()
        await register("create", on: store, server)
        await store.outbox.waitUntilEmpty()
        #expect(server.sentMutations == ["insert:n1=1", "insert:n1=2"], "both, in the order they were made")
        #expect(await feed.snapshot.ids.first == "n1")
    }

    @Test func aRejectedDetachedEditOfASharedItemLeavesNoFeedShowingIt() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never)
        try await test.queueASharedRevisionBeforeARelaunch(server)
        // The app's new model of the home feed: its rows go, the edit stays queued, detached.
        let store = try test.store()
        let home = try store.feed(
            "home", source: server.sharedSource, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 1))
        let profile = try store.feed("profile", source: server.sharedSource, policy: policy)
        #expect(await home.snapshot.rows.count == 0)
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(
            await profile.snapshot.rows[0]?.revision == 0,
            "the server refused the edit: no feed keeps showing it as if it were the server's value")
        #expect(try test.itemsOnDisk(of: SharedPost.self, key: "profile").first?.revision == 0)
    }

    @Test func aCacheVersionBumpWhileTheEditIsSentThenItsRejectionLandsRollsNothingBackOverTheNewEdit() async throws {
        let app = try test.store()
        let old = try test.feed(list.source, store: app)
        await old.refresh()
        let first = try #require(
            try await old.enqueue("revise", id: "p0", argument: Revision(revision: 9)) { $0.revision = 9 })
        let gate = FetchGate()
        gate.arm()
        let server = MutationServer()
        await app.outbox.register("revise", as: Revision.self) { edit in
            _ = server.receive("\(edit.itemID)=\(edit.argument.revision)", key: edit.idempotencyKey)
            await gate.pass()
            return edit.argument.revision == 9 ? .rejected(reason: "HTTP 409") : .confirmed
        }
        #expect(await gate.arrival(), "the first edit is on its way")

        // Meanwhile the app's new model opens the feed (a second store on the file): the edit detaches.
        let updated = try test.store()
        let feed = try test.feed(
            list.source, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 1), store: updated)
        await feed.refresh()
        let second = try #require(
            try await feed.enqueue("revise", id: "p0", argument: Revision(revision: 10)) { $0.revision = 10 })
        #expect(await feed.snapshot.rows[0]?.revision == 10)

        gate.release()
        await app.outbox.waitUntilEmpty()
        #expect(server.sentMutations == ["p0=9", "p0=10"])
        #expect(server.sendsByKey == [first: 1, second: 1])
        #expect(await feed.snapshot.rows[0]?.revision == 10, "the rejected edit had nothing shown to roll back")
        #expect(try test.postsOnDisk().first?.revision == 10)
        #expect(await updated.outbox.status.count == 0)
    }

    @Test func aNewObserverOfAFreshStoreGetsEachStatusOnce() async throws {
        do {
            let store = try test.store()
            let feed = try test.feed(list.source, store: store)
            await feed.refresh()
            try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
            store.close()
        }
        // A widget's badge after a relaunch: its first status is the file's one queued edit.
        let widget = try FeedStore(path: test.path, readOnly: true)
        var iterator = await widget.outbox.states.makeAsyncIterator()
        var seen = [await iterator.next()].compactMap { $0 }
        #expect(seen.first?.count == 1)

        let app = try test.store()
        await app.outbox.register("revise", as: Revision.self) { _ in .confirmed }
        await app.outbox.waitUntilEmpty()
        // The edit being sent by the app may show on the way; the edit gone ends it.
        while let status = await iterator.next() {
            seen.append(status)
            if status.count == 0 { break }
        }
        #expect(seen.last?.count == 0)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 != $1 }, "a status sent twice: \(seen)")
    }

    @Test func aFeedDropsADetachedQueuedRowNothingCanSendAndKeepsItInTheHistory() async throws {
        do {
            let store = try test.store()
            let feed = try test.feed(list.source, store: store)
            await feed.refresh()
            try await feed.enqueue("revise", id: "p0", argument: Revision(revision: 9)) { $0.revision = 9 }
            store.close()
        }
        let policy = FeedPolicy(refreshOnOpen: .never, cacheVersion: 1)
        do {
            // The new model opens the feed: the edit detaches.
            let store = try test.store()
            _ = try test.feed(list.source, policy: policy, store: store)
            store.close()
        }
        try DatabaseQueue(path: test.path).write { store in
            try store.connection.execute("UPDATE pending_edit SET idempotency_key = 'not-a-uuid' WHERE detached = 1")
        }
        let store = try test.store()
        let feed = try test.feed(list.source, policy: policy, store: store)
        let events = await feed.events
        await feed.refresh()
        var dropped: FeedEvent?
        for await event in events where event.kind == .pendingEditDropped {
            dropped = event
            break
        }
        #expect(dropped?.itemIDs == ["p0"])
        let (left, history) = try DatabaseQueue(path: test.path).read { store in
            (try store.connection.int64("SELECT count(*) FROM pending_edit"), try store.droppedQueuedEdits())
        }
        #expect(left == 0)
        #expect(history.map(\.idempotencyKey) == ["not-a-uuid"])
    }

    @Test func twoStoresWithHandlersOnOneFileSendAnEditOnce() async throws {
        let gate = FetchGate()
        gate.arm()
        let server = MutationServer()
        let first = try test.store()
        let second = try test.store()
        for store in [first, second] {
            await store.outbox.register("revise", as: Revision.self) { edit in
                _ = server.receive("\(edit.itemID)=\(edit.argument.revision)", key: edit.idempotencyKey)
                await gate.pass()
                return .confirmed
            }
        }
        let feed = try test.feed(list.source, store: first)
        await feed.refresh()
        let key = try #require(
            try await feed.enqueue("revise", id: "p0", argument: Revision(revision: 9)) { $0.revision = 9 })
        #expect(await gate.arrival())
        // The other store looks while the first send is on its way.
        #expect(await second.outbox.status.count == 1)
        gate.release()
        await first.outbox.waitUntilEmpty()
        await second.outbox.waitUntilEmpty()
        #expect(server.sendsByKey == [key: 1], "one send per edit, not one per store")
    }
}
