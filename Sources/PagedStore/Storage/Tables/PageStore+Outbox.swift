package import Foundation

/// One pending edit made by kind, as the store-wide outbox reads it.
package struct QueuedEditRow: Sendable, Equatable {
    /// The key of the feed the edit changed.
    package var feedKey: String
    /// The item's id, as text.
    package var itemID: String
    /// What the edit does to its row.
    package var change: PendingEditRecord.Kind
    package var createdAt: Date
    package var queued: QueuedEdit
    /// Whether its rows left under it: it is still sent, and shows on no row.
    package var detached = false
    /// Who holds the lease to send it (`pid:store`), and until when; nil when nobody does.
    package var sendingBy: String? = nil
    package var sendingUntil: Date? = nil
}

/// Reading the outbox of the whole file, and recording failed sends.
extension PageStore {
    /// Every feed's pending edits made by kind: items oldest first (by their first edit), each item's
    /// in step order, whatever times an edited file gives them; none when the file predates the outbox
    /// (`pagedb` reading an older file without migrating it).
    package func queuedEdits() throws(StorageError) -> [QueuedEditRow] {
        let tables = try connection.int64(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'pending_edit'")
        guard tables == 1, try hasOutboxColumns() else { return [] }
        let outbox = Self.outboxColumns(true, nextAttempt: try hasNextAttemptColumn(), table: "pending_edit")
        let step = try hasStepColumn() ? "pending_edit.step" : "0"
        let detached =
            try hasDetachedColumn()
            ? "pending_edit.detached, pending_edit.sending_by, pending_edit.sending_until" : "0, NULL, NULL"
        let sql = """
            SELECT feed.key, pending_edit.item_id, pending_edit.kind, pending_edit.created_at, \(outbox), \(detached)
            FROM pending_edit JOIN feed ON feed.id = pending_edit.feed_id
            WHERE pending_edit.outbox_kind IS NOT NULL
            ORDER BY min(pending_edit.created_at) OVER (PARTITION BY pending_edit.feed_id, pending_edit.item_id),
                feed.key, pending_edit.item_id, \(step)
            """
        return try connection.rows(sql) { statement -> QueuedEditRow? in
            guard let feedKey = statement.string(0), let itemID = statement.string(1),
                let change = statement.string(2).flatMap(PendingEditRecord.Kind.init(rawValue:)),
                let queued = Self.queuedEdit(statement, from: 4)
            else { return nil }
            return QueuedEditRow(
                feedKey: feedKey, itemID: itemID, change: change,
                createdAt: Date(millisecondsSince1970: statement.int64(3)), queued: queued,
                detached: statement.int64(10) != 0, sendingBy: statement.string(11),
                sendingUntil: statement.isNull(12) ? nil : Date(millisecondsSince1970: statement.int64(12)))
        }.compactMap { $0 }
    }

    /// Counts a failed send of the edit with `key` by `holder`, keeps what it said, and when it may
    /// go again; its send lease ends. Nothing unless `holder` holds the lease: a store sends only
    /// under its lease, so a send that lost it (it outlived it, and another store took the edit
    /// over) answers too late to count.
    /// - Returns: Whether the feed still had that edit (not settled, nor replaced, meanwhile) under
    ///   `holder`'s lease.
    package func recordFailedSend(
        of itemID: String, key: UUID, by holder: String, error: String, nextAttemptAt: Date, in feed: FeedRecord
    ) throws(StorageError) -> Bool {
        let sql = """
            UPDATE pending_edit SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, sending_by = NULL,
                sending_until = NULL
            WHERE feed_id = ? AND item_id = ? AND idempotency_key = ? AND sending_by = ?
            """
        return try connection.run(
            sql, error, nextAttemptAt.millisecondsSince1970, feed.id, itemID, key.uuidString, holder) > 0
    }

    /// The send lease of the item's queued edit with `key` (nil holder: none), with its failed sends
    /// so far and when it may go again, or nil when the feed no longer has that edit.
    package func sendLease(
        of itemID: String, key: UUID, in feed: FeedRecord
    ) throws(StorageError) -> (holder: String?, until: Date?, attempts: Int, nextAttemptAt: Date?)? {
        let sql = """
            SELECT sending_by, sending_until, attempts, next_attempt_at FROM pending_edit
            WHERE feed_id = ? AND item_id = ? AND idempotency_key = ?
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, itemID)
            try statement.bind(3, key.uuidString)
            guard try statement.step() else { return nil }
            let date = { (column: Int32) in
                statement.isNull(column) ? nil : Date(millisecondsSince1970: statement.int64(column))
            }
            return (statement.string(0), date(1), QueuedEdit.attempts(fromFile: statement.int64(2)), date(3))
        }
    }

    /// Gives the send lease of the item's queued edit with `key` to `holder` until `until`.
    package func setSendLease(
        of itemID: String, key: UUID, holder: String, until: Date, in feed: FeedRecord
    ) throws(StorageError) {
        try connection.run(
            """
            UPDATE pending_edit SET sending_by = ?, sending_until = ?
            WHERE feed_id = ? AND item_id = ? AND idempotency_key = ?
            """, holder, until.millisecondsSince1970, feed.id, itemID, key.uuidString)
    }

    /// Forgets the item's queued edit with `key`, whatever its row holds.
    package func deleteQueuedEdit(itemID: String, key: UUID, in feed: FeedRecord) throws(StorageError) {
        try connection.run(
            "DELETE FROM pending_edit WHERE feed_id = ? AND item_id = ? AND idempotency_key = ?", feed.id, itemID,
            key.uuidString)
    }
}
