import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The outbox's state is part of the file: a store's `status` and `states` say what the file holds,
/// whichever store queued, sent or settled the edits.
@Suite(.limit()) struct OutboxStatusFollowsTheFileTests {
    let test: FeedTestCase
    let list = ModelServer(.posts("p", 4), pageSize: 10)
    init() throws { test = try FeedTestCase() }

    /// Queues a revision of each of `ids` through a store that then closes (a relaunch).
    func queueBeforeARelaunch(_ ids: [String]) async throws {
        try await test.queueRevisionsBeforeARelaunch(ids, revision: 1, source: list.source)
    }

    @Test func aFreshlyOpenedStoreReportsTheQueuedEditsTheFileHolds() async throws {
        try await queueBeforeARelaunch(["p0", "p2"])
        let store = try test.store()
        let status = await store.outbox.status
        #expect(status.count == 2)
        #expect(status.edits.map(\.itemID) == ["p0", "p2"])
    }

    @Test func aReadOnlyStoresStatesFollowAnEditAnotherStoreSends() async throws {
        try await queueBeforeARelaunch(["p1"])
        let widget = try FeedStore(path: test.path, readOnly: true)
        let states = await widget.outbox.states
        var iterator = states.makeAsyncIterator()
        #expect(await iterator.next()?.count == 1, "the widget's badge shows the app's edit")

        let app = try test.store()
        await app.outbox.register("revise", as: Revision.self) { _ in .confirmed }
        await app.outbox.waitUntilEmpty()
        var cleared = false
        while let status = await iterator.next() {
            if status.count == 0 {
                cleared = true
                break
            }
        }
        #expect(cleared, "the badge clears")
        #expect(await widget.outbox.status.count == 0)
    }

    /// A widget's badge (a store with no handler for the edit's kind) says "retrying later" while
    /// the app's server asked it to wait, and "waiting" once that time passed, with no write to
    /// tell it.
    @Test func aBadgeWithoutAHandlerFollowsAnotherStoresRetryTimeRunningOut() async throws {
        let app = try FeedStore(path: test.path, clock: MovableClock().storeClock)
        let feed = try test.feed(list.source, store: app)
        await feed.refresh()
        let widget = try test.store()
        let badge = await OutboxStatusLog(widget.outbox)
        await app.outbox.register("revise", as: Revision.self) { _ in .retryable("HTTP 429", retryAfterHeader: "60") }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        await badge.waitFor { $0.edits.first?.phase == .retryingLater }
        test.clock.advance(by: .seconds(61))
        await badge.waitFor { $0.edits.first?.phase == .waiting }
    }

    /// A read-only store's badge says "sending" while another process holds the edit's lease, and
    /// "waiting" once it ends (the process is gone), with no write to tell it.
    @Test func aReadOnlyBadgeFollowsALeaseOfAGoneProcessRunningOut() async throws {
        try await queueBeforeARelaunch(["p1"])
        let until = (test.clock.storeClock.date() + 30).millisecondsSince1970
        _ = try DatabaseQueue(path: test.path).write { store in
            try store.connection.run("UPDATE pending_edit SET sending_by = 'a process', sending_until = ?", until)
        }
        let widget = try FeedStore(path: test.path, readOnly: true, clock: test.clock.storeClock)
        let badge = await OutboxStatusLog(widget.outbox)
        await badge.waitFor { $0.edits.first?.phase == .sending }
        test.clock.advance(by: .seconds(35))
        await badge.waitFor { $0.edits.first?.phase == .waiting }
    }

    @Test func aStoreThatQueuedSeesTheEditAnotherStoreConfirmed() async throws {
        let queuing = try test.store()
        let feed = try test.feed(list.source, store: queuing)
        await feed.refresh()
        let states = await queuing.outbox.states
        try await feed.enqueue("revise", id: "p3", argument: Revision(revision: 2)) { $0.revision = 2 }
        #expect(await queuing.outbox.status.count == 1)

        let sending = try test.store()
        await sending.outbox.register("revise", as: Revision.self) { _ in .confirmed }
        await sending.outbox.waitUntilEmpty()
        for await status in states where status.count == 0 { break }
        #expect(await queuing.outbox.status.count == 0)
    }

    @Test func aStoreWithAHandlerSendsAnEditAnotherStoreQueuesLater() async throws {
        let sending = try test.store()
        let (sent, send) = AsyncStream.makeStream(of: String.self)
        await sending.outbox.register("revise", as: Revision.self) { edit in
            send.yield(edit.itemID)
            return .confirmed
        }
        let queuing = try test.store()
        let feed = try test.feed(list.source, store: queuing)
        await feed.refresh()
        try await feed.enqueue("revise", id: "p2", argument: Revision(revision: 2)) { $0.revision = 2 }
        // Waited for at the handler: asking the sending store anything would make it look itself.
        var first: String?
        for await itemID in sent {
            first = itemID
            break
        }
        #expect(first == "p2", "sent by the store with the handler, without being asked")
    }
}
