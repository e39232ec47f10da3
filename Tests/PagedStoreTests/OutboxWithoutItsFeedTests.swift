import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Queued edits go when the store opens after a relaunch, whether or not the app opens their feed:
/// the outcome is written through the store's write path, a feed opened later reads it, and an
/// open list of the feed in another store follows it with the exact change.
@Suite(.limit()) struct OutboxWithoutItsFeedTests {
    let test: FeedTestCase
    let list = ModelServer(.posts("p", 4), pageSize: 10)
    init() throws { test = try FeedTestCase() }

    /// Queues `enqueue`'s edit on the refreshed feed of a store that then closes, as an app killed
    /// offline leaves it.
    func queueBeforeARelaunch(_ enqueue: (Feed<Post>) async throws -> UUID?) async throws -> UUID {
        let store = try test.store()
        let feed = try test.feed(list.source, store: store)
        await feed.refresh()
        let key = try #require(try await enqueue(feed))
        store.close()
        return key
    }

    @Test func anEditPendingAtARelaunchIsSentOnceWithoutItsFeedOpen() async throws {
        let key = try await queueBeforeARelaunch {
            try await $0.enqueue("revise", id: "p2", argument: Revision(revision: 9)) { $0.revision = 9 }
        }
        let server = MutationServer()
        let store = try test.store()
        await store.outbox.register("revise", as: Revision.self) { edit in
            server.receive("\(edit.feedKey)/\(edit.itemID)=\(edit.argument.revision)", key: edit.idempotencyKey)
            return .confirmed
        }
        await store.outbox.waitUntilEmpty()
        await store.outbox.resume()
        #expect(await store.outbox.status.count == 0)
        #expect(server.sentMutations == ["home/p2=9"])
        #expect(server.sendsByKey == [key: 1])
        #expect(try test.payloadOnDisk("p2")?.revision == 9, "confirmed: the edit stays until the next server copy")

        let feed = try test.feed(list.source, store: store)
        #expect(try await feed.pendingEdits().isEmpty)
        #expect(await feed.snapshot.rows[2]?.revision == 9)
    }

    @Test func aRejectedEditIsRolledBackInTheFileAndAListInAnotherStoreFollowsExactly() async throws {
        _ = try await queueBeforeARelaunch {
            try await $0.enqueue("revise", id: "p1", argument: Revision(revision: 7)) { $0.revision = 7 }
        }
        // A widget's store shows the edit; it has no handler, so it sends nothing.
        let widget = try test.feed(list.source)
        #expect(await widget.snapshot.rows[1]?.revision == 7)
        let recorder = await SnapshotRecorder(widget)

        let store = try test.store()
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(try test.payloadOnDisk("p1")?.revision == 0, "the file's row is the server's again")

        var followed: FeedSnapshot<Post>?
        for await snapshot in await widget.snapshots where snapshot.rows[1]?.revision == 0 {
            followed = snapshot
            break
        }
        #expect(followed?.change.reloadedRows == [IndexPath(indexes: [0, 1])])
        #expect(followed?.change.isFullReload == false)
        let snapshots = await recorder.snapshots(settlingOn: widget)
        SecondWriterChecks.everyChangeApplies(snapshots, "widget")
        #expect(try await widget.pendingEdits().isEmpty)

        let feed = try test.feed(list.source, store: store)
        #expect(await feed.snapshot.rows.loadedItems.map(\.revision) == [0, 0, 0, 0])
        #expect(try await feed.pendingEdits().isEmpty)
    }

    @Test func aRejectedRemovalPutsTheItemBackWhereItWasForTheFeedOpenedLater() async throws {
        _ = try await queueBeforeARelaunch {
            try await $0.enqueue("delete", removing: "p2", argument: Revision(revision: 0))
        }
        #expect(try test.idsOnDisk() == ["p0", "p1", "p3"])
        let store = try test.store()
        await store.outbox.register("delete", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await store.outbox.waitUntilEmpty()
        #expect(try test.idsOnDisk() == ["p0", "p1", "p2", "p3"])
        let feed = try test.feed(list.source, store: store)
        #expect(await feed.snapshot.ids == ["p0", "p1", "p2", "p3"])
        #expect(try await feed.pendingEdits().isEmpty)
    }

    @Test func aReadOnlyStoreListsQueuedEditsAndSendsNone() async throws {
        _ = try await queueBeforeARelaunch {
            try await $0.enqueue("revise", id: "p0", argument: Revision(revision: 1)) { $0.revision = 1 }
        }
        let sends = Locked(0)
        let store = try FeedStore(path: test.path, readOnly: true)
        await store.outbox.register("revise", as: Revision.self) { _ in
            _ = sends.increment()
            return .confirmed
        }
        await store.outbox.resume()
        // A send would be in flight from the registration on: none is.
        let status = await store.outbox.status
        #expect(status.edits.map(\.phase) == [.waiting])
        #expect(sends.value == 0)
        #expect(try test.payloadOnDisk("p0")?.revision == 1)
    }
}

extension OutboxWithoutItsFeedTests {
    @Test func aRejectedEditOfASharedItemIsRolledBackInEveryFeedHoldingIt() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never)
        try await test.queueASharedRevisionBeforeARelaunch(server)
        // After the relaunch only the profile is open; the edit was made in the home feed.
        let store = try test.store()
        let profile = try store.feed("profile", source: server.sharedSource, policy: policy)
        #expect(await profile.snapshot.rows[0]?.revision == 9)
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        let rolledBack = await profile.firstSnapshot { $0.rows[0]?.revision == 0 }
        #expect(rolledBack?.change.reloadedRows == [IndexPath(indexes: [0, 0])])
        await store.outbox.waitUntilEmpty()
        let home = try store.feed("home", source: server.sharedSource, policy: policy)
        #expect(await home.snapshot.rows[0]?.revision == 0)
        #expect(try await home.pendingEdits().isEmpty)
    }
}
