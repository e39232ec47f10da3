import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Queued edits whose rows left (detached), attacked: what a new edit of the item, a relaunch, a
/// second store or a hand-edited file does to them.
@Suite(.timeLimit(.minutes(1))) struct OutboxAttackTests {
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
}
