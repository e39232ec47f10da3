import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A queued edit the file holds in a way the outbox cannot send (a file edited by hand): named by
/// `verify` and the outbox's listing, dropped by its feed with a report and kept in the history, and
/// never a reason to refuse the item's next edit.
@Suite(.limit()) struct UnreadableQueuedEditTests {
    let test: FeedTestCase
    let list = ModelServer(.posts("p", 4), pageSize: 10)
    init() throws { test = try FeedTestCase() }

    @Test(arguments: ["'not-a-uuid'", "NULL"])
    func aQueuedEditWithoutAKeyIsNamedDroppedAndKeptInTheHistory(_ key: String) async throws {
        let store = try test.store()
        let feed = try test.feed(list.source, store: store)
        await feed.refresh()
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 3)) { $0.revision = 3 }
        store.close()
        try DatabaseQueue(path: test.path).write { store in
            try store.connection.execute("UPDATE pending_edit SET idempotency_key = \(key)")
        }
        let reader = try DatabaseQueue(path: test.path)
        let violations = try reader.read { try $0.verify() }
        #expect(violations.contains { $0.rule == "pending_edit" && $0.detail.contains("idempotency key") })
        #expect(try reader.read { try $0.unreadableQueuedEdits() }.map(\.edit.itemID) == ["p1"])

        let reopened = try test.feed(list.source)
        let events = await reopened.events
        let next = try await reopened.enqueue("revise", id: "p1", argument: Revision(revision: 4)) { $0.revision = 4 }
        #expect(next != nil, "the item takes its next edit")
        await reopened.refresh()
        var dropped: FeedEvent?
        for await event in events where event.kind == .pendingEditDropped {
            dropped = event
            break
        }
        #expect(dropped?.itemIDs == ["p1"])
        let history = try reader.read { try $0.droppedQueuedEdits() }
        #expect(history.map(\.itemID) == ["p1"])
        #expect(history.first?.kind == "revise")
        #expect(try reader.read { try $0.verify() }.isEmpty)
        #expect(await reopened.snapshot.rows[1]?.revision == 4)
    }
}
