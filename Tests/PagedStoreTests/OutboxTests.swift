import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Queued edits through the public API: sent by the handler of their kind, settled by its outcome
/// (confirmed, rejected with exact rollback index paths, retryable after the server's
/// `Retry-After`), one in flight per item, and sent exactly once by key after a relaunch.
@Suite(.limit()) struct OutboxTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func aConfirmedEditIsSentOnceWithItsKeyAndNoLongerPending() async throws {
        let (store, feed) = try await test.openPosts(ModelServer(.posts("p", 4), pageSize: 10))
        let server = MutationServer()
        await store.outbox.register("revise", as: Revision.self) { edit in
            server.receive("\(edit.itemID)=\(edit.argument.revision)", key: edit.idempotencyKey)
            return .confirmed
        }
        let key = try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 5)) { $0.revision = 5 }
        #expect(await feed.snapshot.change.reloadedRows == [IndexPath(indexes: [0, 1])])
        await store.outbox.waitUntilEmpty()
        #expect(server.appliedMutations == ["p1=5"])
        #expect(try server.sendsByKey == [#require(key): 1])
        #expect(await feed.snapshot.rows[1]?.revision == 5)
        #expect(try await feed.pendingEdits().isEmpty)
        #expect(try test.payloadOnDisk("p1")?.revision == 5)
    }

    @Test func aRejectedEditRollsBackWithExactIndexPaths() async throws {
        let (store, feed) = try await test.openPosts(ModelServer(.posts("p", 4), pageSize: 10))
        await store.outbox.register("delete", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        let key = try await feed.enqueue("delete", removing: "p2", argument: Revision(revision: 0))
        #expect(key != nil)
        await store.outbox.waitUntilEmpty()
        let snapshot = await feed.snapshot
        #expect(snapshot.change.insertedRows == [IndexPath(indexes: [0, 2])])
        #expect(snapshot.rows.loadedItems.map(\.id) == ["p0", "p1", "p2", "p3"])
        #expect(try test.idsOnDisk() == ["p0", "p1", "p2", "p3"])
        #expect(try await feed.pendingEdits().isEmpty)

        await store.outbox.register("post", as: Revision.self) { _ in .rejected(reason: "HTTP 422") }
        try await feed.enqueue("post", inserting: Post(id: "new"), at: 1, argument: Revision(revision: 0))
        #expect(await feed.snapshot.change.insertedRows == [IndexPath(indexes: [0, 1])])
        await store.outbox.waitUntilEmpty()
        #expect(await feed.snapshot.change.deletedRows == [IndexPath(indexes: [0, 1])])
        #expect(try test.idsOnDisk() == ["p0", "p1", "p2", "p3"])
    }

    @Test func aRetryableEditIsKeptCountedAndSentAgainAfterTheServersRetryAfter() async throws {
        let (store, feed) = try await test.openPosts(ModelServer(.posts("p", 4), pageSize: 10))
        // Without the server's wait the backoff would be an hour: the retry comes from Retry-After.
        await store.outbox.setRetryDelays(first: .seconds(3_600), maximum: .seconds(7_200))
        let server = MutationServer()
        let clock = test.clock.storeClock
        let calls = Locked<[(attempt: Int, at: ContinuousClock.Instant)]>([])
        await store.outbox.register("revise", as: Revision.self) { edit in
            calls.append((edit.attempt, clock.now()))
            if edit.attempt == 1 { return .retryable("HTTP 503", retryAfterHeader: "30") }
            server.receive(edit.itemID, key: edit.idempotencyKey)
            return .confirmed
        }
        try await feed.enqueue("revise", id: "p3", argument: Revision(revision: 1)) { $0.revision = 1 }
        let failed = await store.outbox.waitFor {
            $0.edits.first?.attempts == 1 && $0.edits.first?.phase == .retryingLater
        }
        #expect(failed?.edits.first?.lastError == "HTTP 503")
        #expect(await feed.snapshot.rows[3]?.revision == 1, "kept on screen while it waits")
        // Sent again only once the clock passes the server's wait, which real time never reaches here.
        test.clock.advance(by: .seconds(30))
        await store.outbox.waitUntilEmpty()
        let attempts = calls.value
        #expect(attempts.map(\.attempt) == [1, 2])
        if attempts.count == 2 { #expect(attempts[1].at - attempts[0].at >= .seconds(30)) }
        #expect(server.appliedMutations == ["p3"])
    }

    @Test func resumeSendsAWaitingEditAtOnce() async throws {
        let (store, feed) = try await test.openPosts(ModelServer(.posts("p", 4), pageSize: 10))
        await store.outbox.setRetryDelays(first: .seconds(3600), maximum: .seconds(3600))
        let online = Locked(false)
        await store.outbox.register("revise", as: Revision.self) { _ in
            online.value ? .confirmed : .retryable(reason: "offline", retryAfter: nil)
        }
        try await feed.enqueue("revise", id: "p0", argument: Revision(revision: 2)) { $0.revision = 2 }
        await store.outbox.waitFor { $0.edits.first?.phase == .retryingLater }
        online.value = true
        await store.outbox.resume()
        await store.outbox.waitUntilEmpty()
        #expect(await feed.snapshot.rows[0]?.revision == 2)
    }

    @Test func anEditOfAnItemTheServerDeletedSettlesWithoutLooping() async throws {
        let list = ModelServer(.posts("p", 4), pageSize: 10)
        let (store, feed) = try await test.openPosts(list)
        let sends = Locked(0)
        await store.outbox.setRetryDelays(first: .seconds(3600), maximum: .seconds(3600))
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        list.items.remove(at: 1)
        await feed.refresh()
        await store.outbox.register("revise", as: Revision.self) { _ in
            _ = sends.increment()
            return .rejected(reason: "HTTP 404")
        }
        await store.outbox.waitUntilEmpty()
        await store.outbox.resume()
        #expect(await store.outbox.status.count == 0)
        #expect(sends.value == 1)
        #expect(await feed.snapshot.rows.loadedItems.map(\.id) == ["p0", "p2", "p3"])
    }

    @Test func anItemHasOneEditInFlightAndItsNextWaitsUntilItSettles() async throws {
        let (store, feed) = try await test.openPosts(ModelServer(.posts("p", 4), pageSize: 10))
        let server = MutationServer()
        let call = HeldCall()
        await store.outbox.register("revise", as: Revision.self) { edit in
            server.receive("\(edit.itemID)=\(edit.argument.revision)", key: edit.idempotencyKey)
            if edit.argument.revision == 1 { try await call.outcome() }
            return .confirmed
        }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        await store.outbox.waitFor { $0.edits.first?.phase == .sending }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 2)) { $0.revision = 2 }
        await store.outbox.resume()
        #expect(await store.outbox.status.edits.map(\.phase) == [.sending, .waiting])
        #expect(await feed.snapshot.rows[1]?.revision == 2, "the later edit shows on top of the first")
        #expect(server.sentMutations == ["p1=1"])
        call.finish(succeeding: true)
        await store.outbox.waitUntilEmpty()
        #expect(server.sentMutations == ["p1=1", "p1=2"])
        #expect(server.appliedMutations == ["p1=1", "p1=2"])
        #expect(await feed.snapshot.rows[1]?.revision == 2)
    }

    @Test func anEditPendingAtARelaunchIsSentExactlyOnceWhenItsHandlerIsRegistered() async throws {
        let list = ModelServer(.posts("p", 4), pageSize: 10)
        do {
            let (store, feed) = try await test.openPosts(list)
            try await feed.enqueue("revise", id: "p2", argument: Revision(revision: 9)) { $0.revision = 9 }
            #expect(await store.outbox.status.count == 1)
            store.close()
        }
        let server = MutationServer()
        let store = try test.store()
        let feed = try test.feed(list.source, store: store)
        #expect(await feed.snapshot.rows[2]?.revision == 9, "shown from the file before any send")
        await feed.refresh()
        #expect(await feed.snapshot.rows[2]?.revision == 9, "kept on top of the refresh")
        await store.outbox.register("revise", as: Revision.self) { edit in
            server.receive("\(edit.itemID)=\(edit.argument.revision)", key: edit.idempotencyKey)
            return .confirmed
        }
        await store.outbox.waitUntilEmpty()
        await store.outbox.resume()
        #expect(server.sentMutations == ["p2=9"])
        #expect(try test.payloadOnDisk("p2")?.revision == 9)
        #expect(try await feed.pendingEdits().isEmpty)
    }

    @Test func aServersRetryAfterOutlivesARelaunchAndResumeStillSendsAtOnce() async throws {
        let list = ModelServer(.posts("p", 4), pageSize: 10)
        do {
            let (store, feed) = try await test.openPosts(list)
            await store.outbox.register("revise", as: Revision.self) { _ in
                .retryable(reason: "HTTP 503", retryAfter: .seconds(60))
            }
            try await feed.enqueue("revise", id: "p2", argument: Revision(revision: 9)) { $0.revision = 9 }
            await store.outbox.waitFor { $0.edits.first?.attempts == 1 }
            store.close()
        }
        let server = MutationServer()
        let store = try test.store()
        let feed = try test.feed(list.source, store: store)
        await store.outbox.register("revise", as: Revision.self) { edit in
            server.receive("\(edit.itemID)=\(edit.argument.revision)", key: edit.idempotencyKey)
            return .confirmed
        }
        // Another item's edit goes at once; p2's waits for the time its failed send kept.
        let other = try #require(
            try await feed.enqueue("revise", id: "p0", argument: Revision(revision: 1)) { $0.revision = 1 })
        let waiting = await store.outbox.waitFor { $0.count == 1 }
        #expect(server.sentMutations == ["p0=1"], "nothing of p2 is sent before its Retry-After")
        #expect(waiting?.edits.first?.itemID == "p2")
        #expect(waiting?.edits.first?.phase == .retryingLater)
        #expect(server.sendsByKey[other] == 1)
        await store.outbox.resume()
        await store.outbox.waitUntilEmpty()
        #expect(server.sentMutations == ["p0=1", "p2=9"], "resume sends it at once")
        #expect(try test.payloadOnDisk("p2")?.revision == 9)
    }
}

/// Settling one item's edit reads and re-applies that item's stack only: the feed's other edits stay
/// as they were, and still go again on the next page that brings their rows.
extension OutboxTests {
    @Test func settlingOneItemsEditLeavesTheOtherItemsEditsPendingAndReapplied() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let (_, feed) = try await test.openPosts(server)
        // No handler for the kind: the edits stay queued until settled here.
        try await feed.enqueue("revise", id: "p0", argument: Revision(revision: 1)) { $0.revision = 1 }
        try await feed.enqueue("revise", id: "p2", argument: Revision(revision: 7)) { $0.revision = 7 }
        try await feed.settlePendingEdit(itemID: "p0", committed: false)
        #expect(try await feed.pendingEdits().map(\.itemID) == ["p2"])
        var items = server.items
        items[2].revision = 3  // the server's new value of the other item
        server.items = items
        await feed.refresh()
        let rows = await feed.snapshot.rows
        #expect(rows[0]?.revision == 0, "rolled back")
        #expect(rows[2]?.revision == 7, "the other item's edit goes again on the server's new value")
    }
}
