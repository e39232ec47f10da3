import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// `pagedb outbox`, `verify` and `delete` on queued rows a hand or another version left: each is
/// named where the command says it is, and none goes without the history keeping it.
@Suite(.timeLimit(.minutes(1))) struct OutboxAttackCommandTests {
    @Test func outboxNamesTheUnreadableRowsBelowItsTableEvenThroughAPipe() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, _) = try await OutboxCommandTests.cacheWithQueuedEdits(in: scratch)
        let connection = try Connection(path: db, mode: .readWrite)
        try connection.execute("UPDATE pending_edit SET idempotency_key = 'not-a-uuid' WHERE item_id = 'p1'")
        let table = try PagedDBBinary.run(["outbox", "--db", db])
        #expect(table.status == 0, "\(table.stderr)")
        let total = try #require(table.stdout.range(of: "1 queued edit."), "\(table.stdout)")
        let warning = try #require(table.stdout.range(of: "1 queued row cannot be read"), "\(table.stdout)")
        #expect(total.upperBound <= warning.lowerBound, "the list, then what it could not read: \(table.stdout)")
    }
}
