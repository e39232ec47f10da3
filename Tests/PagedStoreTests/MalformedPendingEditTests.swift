import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Pending edit rows that no edit writes (a file edited with sqlite3, a faulty writer): `verify`
/// names them, a feed drops them and reports it, never writes them over the server's value, and the
/// feed keeps opening.
@Suite(.limit(minutes: 3)) struct MalformedPendingEditTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A malformed row: what is planted for `p1`, and whether `verify` can tell without the codec.
    struct Planted: Sendable, CustomTestStringConvertible {
        let kind: String
        let base: Bool
        let edited: String?
        let seenByVerify: Bool
        var testDescription: String { "\(kind), base \(base), edited \(edited ?? "NULL")" }
    }

    static let malformedRows = [
        Planted(kind: "update", base: true, edited: nil, seenByVerify: true),
        Planted(kind: "update", base: true, edited: "not an item", seenByVerify: false),
        Planted(kind: "update", base: true, edited: #"{"id":"p3","revision":5}"#, seenByVerify: false),
        Planted(kind: "update", base: false, edited: #"{"id":"p1","revision":5}"#, seenByVerify: true),
        Planted(kind: "insert", base: false, edited: nil, seenByVerify: true),
        Planted(kind: "upsert", base: true, edited: #"{"id":"p1","revision":5}"#, seenByVerify: true),
        Planted(kind: "remove", base: false, edited: nil, seenByVerify: true),
    ]

    @Test(arguments: malformedRows)
    func aMalformedPendingEditIsDroppedAndReportedAndTheServersValueStays(_ planted: Planted) async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        try await test.feed(server.source).refresh()
        try plant(planted)
        let violations = try DatabaseQueue(path: test.path).read { try $0.verify() }
        #expect(violations.contains { $0.rule == "pending_edit" && $0.detail.contains("p1") } == planted.seenByVerify)

        // A relaunch, and a refresh that brings the server's new value of p1.
        let feed = try test.feed(server.source)
        let events = await feed.events
        server.items[1].revision = 2
        await feed.refresh()
        #expect(await feed.snapshot.rows[1] == Post(id: "p1", revision: 2), "the server's value")
        #expect(try test.payloadOnDisk("p1") == Post(id: "p1", revision: 2))
        #expect(try pendingRows() == 0, "the malformed row is dropped")
        #expect(try await feed.pendingEdits().isEmpty)
        var dropped: [FeedEvent] = []
        for await event in events {
            if event.kind == .pendingEditDropped { dropped.append(event) }
            if event.kind == .committed { break }  // the refresh's commit, which dropped the edit first
        }
        #expect(dropped.count == 1 && dropped.first?.error?.message.contains("\"p1\"") == true, "\(dropped)")
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
        let reopened = try test.feed(server.source)
        #expect(await reopened.snapshot.ids == server.items.map(\.id))
    }

    @Test func rollingBackAnUpdateWhoseServerPayloadCannotBeDecodedWritesNothingOverTheRow() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        try await test.feed(server.source).refresh()
        try plant(Planted(kind: "update", base: false, edited: #"{"id":"p1","revision":5}"#, seenByVerify: true))
        try DatabaseQueue(path: test.path).write { store in
            try store.connection.execute("UPDATE pending_edit SET base = 'not an item'")
            try store.connection.execute(#"UPDATE item SET payload = '{"id":"p1","revision":5}' WHERE item_id = 'p1'"#)
        }
        let feed = try test.feed(server.source)
        try await feed.settlePendingEdit(itemID: "p1", committed: false)
        #expect(try test.payloadOnDisk("p1") == Post(id: "p1", revision: 5), "the row keeps a value it can decode")
        #expect(try pendingRows() == 0)
        #expect(try await test.feed(server.source).snapshot.ids == server.items.map(\.id))
    }

    @Test func aRemoveWhoseNeighboursNameItselfOrNothingRollsBackWithoutBreakingTheFeed() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        try await feed.remove(id: "p1")
        try DatabaseQueue(path: test.path).write { store in
            let feed = try #require(try store.feed(key: "home"))
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: "p1", kind: .remove, base: try JSONEncoder().encode(Post(id: "p1")), edited: nil,
                    above: "p1", below: "nowhere", createdAt: Date()),
                in: feed)
        }
        let reopened = try test.feed(server.source)
        await reopened.refresh()
        #expect(await reopened.snapshot.ids == ["p0", "p2", "p3"], "the refresh keeps the pending remove")
        try await reopened.settlePendingEdit(itemID: "p1", committed: false)
        #expect(try pendingRows() == 0)
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
        await reopened.refresh()
        #expect(await reopened.snapshot.ids == server.items.map(\.id), "the server's pages bring it back")
    }

    @Test(arguments: [("remove", "update"), ("update", "insert")])
    func anItemsEditsInAnOrderNoEditsLeaveAreDroppedAndNamedByVerify(_ kinds: (String, String)) async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        try await test.feed(server.source).refresh()
        try plantStack(kinds)
        let violations = try DatabaseQueue(path: test.path).read { try $0.verify() }
        #expect(violations.contains { $0.rule == "pending_edit" && $0.detail.contains("p1") }, "\(violations)")
        let feed = try test.feed(server.source)
        await feed.refresh()
        #expect(await feed.snapshot.ids == server.items.map(\.id))
        #expect(await feed.snapshot.rows[1] == Post(id: "p1"), "the server's value")
        #expect(try pendingRows() == 0, "the item's edits are dropped")
    }

    /// The same stacks, sent by a store with no feed open (a relaunch that registers its handlers
    /// first) and rejected: nothing is rolled back onto the row, and every edit of the stack is
    /// dropped into the outbox's history, as a feed drops them, never deleted unreported.
    @Test(arguments: [("remove", "update"), ("update", "insert")])
    func anItemsEditsInAnOrderNoEditsLeaveSentWithoutTheFeedAreDroppedIntoTheHistory(
        _ kinds: (String, String)
    )
        async throws
    {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let shown = try test.store()
        try await test.feed(server.source, store: shown).refresh()
        shown.close()
        try plantStack(kinds)
        _ = try await test.sendAllQueued(answering: .rejected(reason: "HTTP 409"))
        #expect(try pendingRows() == 0)
        let history = try DatabaseQueue(path: test.path).read { try $0.droppedEdits(after: 0) }
        #expect(history.map(\.edit.itemID) == ["p1", "p1"], "both edits are in the history: \(history)")
        #expect(try test.idsOnDisk() == server.items.map(\.id), "no rollback took p1's row")
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    /// An unreadable row in a stack the outbox settles without the feed, under an insert whose
    /// rejection takes the item's later edits with it: the rejection deleted every edit of the item,
    /// and only the ones it could read reached the history. Now the unreadable row goes into the
    /// history first, as a feed reading it drops it, and the insert's rejection reports the edit it
    /// takes with it.
    @Test func anUnreadableRowInAStackSentWithoutTheFeedGoesIntoTheHistory() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let shown = try test.store()
        try await test.feed(server.source, store: shown).refresh()
        shown.close()
        try plantStack(["insert", "update", "upsert"])
        _ = try await test.sendAllQueued(answering: .rejected(reason: "HTTP 409"))
        #expect(try pendingRows() == 0)
        let history = try DatabaseQueue(path: test.path).read { try $0.droppedEdits(after: 0) }
        #expect(history.count == 2, "the two edits the server never had: \(history)")
        #expect(history.contains { $0.edit.problem.contains("\"upsert\"") }, "the unreadable row names its kind")
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    /// A sound first edit with an unreadable row after it: the edit stands on the server's value,
    /// not on the row, so it is sent and settles as the server answers; only the unreadable row
    /// goes into the history, never the edit the server answered.
    @Test(arguments: [true, false])
    func theEditBeforeAnUnreadableRowIsSentAndSettles(confirmed: Bool) async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let shown = try test.store()
        try await test.feed(server.source, store: shown).refresh()
        shown.close()
        try plantStack(["update", "upsert"])
        let sent = try await test.sendAllQueued(answering: confirmed ? .confirmed : .rejected(reason: "HTTP 409"))
        #expect(sent.count == 1)
        let history = try DatabaseQueue(path: test.path).read { try $0.droppedEdits(after: 0) }
        #expect(history.count == 1 && history[0].edit.problem.contains("\"upsert\""), "the row alone: \(history)")
        #expect(!history.contains { $0.edit.idempotencyKey == sent.first?.uuidString }, "the answered edit settled")
        #expect(try pendingRows() == 0)
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    /// Writes two queued "hide" edits of `p1` of the feed "home" with the kinds `kinds`, in order,
    /// as sqlite3 would.
    func plantStack(_ kinds: (String, String)) throws {
        try plantStack([kinds.0, kinds.1])
    }

    /// Writes queued "hide" edits of `p1` of the feed "home" with the kinds `kinds`, in order, as
    /// sqlite3 would.
    func plantStack(_ kinds: [String]) throws {
        try DatabaseQueue(path: test.path).write { store in
            let feed = try #require(try store.feed(key: "home"))
            let stored = try #require(try store.items(withIDs: ["p1"], in: feed)["p1"])
            for (step, kind) in kinds.enumerated() {
                try store.savePendingEdit(
                    PendingEditRecord(
                        itemID: "p1", kind: .update, base: stored.payload,
                        edited: try JSONEncoder().encode(Post(id: "p1", revision: 9)), createdAt: Date(),
                        queued: QueuedEdit(
                            kind: "hide", argument: Data(#"{"revision":9}"#.utf8), idempotencyKey: UUID()),
                        step: step),
                    in: feed)
                try store.connection.execute("UPDATE pending_edit SET kind = '\(kind)' WHERE step = \(step)")
            }
        }
    }

    /// Writes the planted row for `p1` of the feed "home", as sqlite3 would.
    func plant(_ planted: Planted) throws {
        try DatabaseQueue(path: test.path).write { store in
            let feed = try #require(try store.feed(key: "home"))
            let stored = try #require(try store.items(withIDs: ["p1"], in: feed)["p1"])
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: "p1", kind: .update, base: planted.base ? stored.payload : nil,
                    edited: planted.edited.map { Data($0.utf8) }, createdAt: Date()),
                in: feed)
            try store.connection.execute("UPDATE pending_edit SET kind = '\(planted.kind)'")
        }
    }

    func pendingRows() throws -> Int64 {
        try DatabaseQueue(path: test.path).read { try $0.connection.int64("SELECT count(*) FROM pending_edit") } ?? -1
    }
}
