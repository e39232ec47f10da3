import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A file written before migration 0005 (no `item.local`), opened by this build.
@Suite(.limit(minutes: 3)) struct ServerDeletionMigrationTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A pending optimistic insert from before the upgrade is the app's row: a fill that skips it
    /// does not delete it (only to have the pending edit put it back, as a delete and an insert).
    @Test func aPendingInsertFromBeforeTheUpgradeSurvivesAFillThatSkipsIt() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        server.items = .posts("n", 25) + server.items
        await feed.refresh()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))  // n10…n19
        // An optimistic insert whose call is still out when the app is upgraded.
        let (stream, answer) = AsyncStream.makeStream(of: Void.self)
        let posting = Task { try await feed.insert(Post(id: "posting"), at: 24) { _ in for await _ in stream {} } }
        while try await !feed.pendingEdits().contains(where: { $0.itemID == "posting" }) { await Task.yield() }
        // The file as the build before 0005 left it.
        let connection = try Connection(path: test.path, mode: .readWrite)
        try connection.execute("ALTER TABLE feed DROP COLUMN search_fields")
        try connection.execute("ALTER TABLE feed DROP COLUMN search_backlog")
        try connection.execute("DROP INDEX item_shared_by_id")
        try connection.execute("ALTER TABLE feed DROP COLUMN shared_type")
        try connection.execute("ALTER TABLE item DROP COLUMN flags")
        try connection.execute("ALTER TABLE feed DROP COLUMN change_count")
        try connection.execute("DROP TABLE feed_change")
        try connection.execute("DROP TABLE outbox_dropped")
        for column in [
            "detached", "sending_by", "sending_until", "outbox_kind", "argument", "idempotency_key", "attempts",
            "last_error", "next_attempt_at",
        ] {
            try connection.execute("ALTER TABLE pending_edit DROP COLUMN \(column)")
        }
        try connection.execute("DROP TABLE feed_use")
        try connection.execute("DROP TABLE page_group")
        try connection.execute("PRAGMA user_version = 4")
        server.items.removeAll { $0.id == "p1" }
        let upgraded = try test.feed(server.source, policy: policy)
        let recorder = await SnapshotRecorder(upgraded)
        await upgraded.loadGap(try #require(await upgraded.snapshot.gaps.first))
        let snapshot = await upgraded.snapshot
        #expect(!snapshot.ids.contains("p1"))
        let p3 = try #require(snapshot.ids.firstIndex(of: "p3"))
        #expect(snapshot.ids[p3 + 1] == "posting", "still right below p3")
        #expect(snapshot.change.deletedRows == [IndexPath(section: 0, row: 21)], "only p1: \(snapshot.change)")
        try await ReferenceModelTests.check(recorder, upgraded, test, "upgraded file")
        answer.finish()
        try await posting.value
    }
}
