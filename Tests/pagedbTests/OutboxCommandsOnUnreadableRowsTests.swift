import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// `pagedb outbox`, `verify` and `delete` on queued rows a hand or another version left: each is
/// named where the command says it is, and none goes without the history keeping it.
@Suite(.limit(minutes: 3)) struct OutboxCommandsOnUnreadableRowsTests {
    @Test func outboxNamesTheUnreadableRowsBelowItsTableEvenThroughAPipe() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await OutboxCommandTests.cacheWithAnUnreadableQueuedRow(in: scratch)
        let table = try await PagedDBBinary.run(["outbox", "--db", db])
        #expect(table.status == 0, "\(table.stderr)")
        let total = try #require(table.stdout.range(of: "1 queued edit."), "\(table.stdout)")
        let warning = try #require(table.stdout.range(of: "1 queued row cannot be read"), "\(table.stdout)")
        #expect(total.upperBound <= warning.lowerBound, "the list, then what it could not read: \(table.stdout)")
    }

    @Test func deleteKeepsAQueuedRowItCannotReadInTheHistory() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, _) = try await OutboxCommandTests.cacheWithQueuedEdits(in: scratch)
        let connection = try Connection(path: db, mode: .readWrite)
        try connection.execute("DELETE FROM pending_edit WHERE item_id = 'p2'")
        try connection.execute("UPDATE pending_edit SET idempotency_key = 'not-a-uuid' WHERE item_id = 'p1'")
        let refused = try await PagedDBBinary.run(["delete", "home", "--db", db])
        #expect(refused.status == 7, "a queued row is the user's intent, read or not: \(refused.stdout)")
        #expect(refused.stderr.contains("1 queued edit"), "\(refused.stderr)")
        let deleted = try await PagedDBBinary.run(["delete", "home", "--db", db, "--drop-queued-edits"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout.contains("1 queued edit dropped unsent"), "\(deleted.stdout)")
        let history = try await PagedDBBinary.run(["outbox", "--db", db, "--dropped", "--json"])
        let dropped = try #require(try PagedDBBinary.json(history) as? [[String: Any]])
        #expect(
            dropped.map { $0["idempotency_key"] as? String } == ["not-a-uuid"],
            "a queued row deleted with its feed is kept in the history, readable or not: \(history.stdout)")
    }

    @Test func verifyAndOutboxNameADetachedQueuedRowTheyCannotRead() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await OutboxCommandTests.cacheWithAnUnreadableQueuedRow(
            in: scratch, set: "detached = 1, idempotency_key = 'not-a-uuid'")
        let verify = try await PagedDBBinary.run(["verify", "--db", db])
        #expect(verify.status == 1, "a row nothing sends nor drops: \(verify.stdout)")
        #expect(verify.stdout.contains("not-a-uuid"), "\(verify.stdout)")
        let table = try await PagedDBBinary.run(["outbox", "--db", db])
        #expect(table.stdout.contains("1 queued row cannot be read"), "\(table.stdout)")
    }
}
