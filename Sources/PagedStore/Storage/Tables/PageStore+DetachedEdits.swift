package import Foundation

/// Queued edits whose rows left under them (see ``PendingEditRecord/detached``): kept, still sent,
/// shown on no row; and the outbox's history of the queued edits dropped unsent.
extension PageStore {
    /// Whether the file's `pending_edit` marks detached edits (a file `pagedb` reads without
    /// migrating it may predate them: none of its edits is).
    package func hasDetachedColumn() throws(StorageError) -> Bool {
        try connection.int64("SELECT count(*) FROM pragma_table_info('pending_edit') WHERE name = 'detached'") == 1
    }

    /// Keeps `edit` queued while its row leaves: it stays in its item's order for the outbox, and no
    /// write applies it to a row or rolls it back again.
    package func detach(_ edit: PendingEditRecord, in feed: FeedRecord) throws(StorageError) {
        try connection.run(
            "UPDATE pending_edit SET detached = 1 WHERE feed_id = ? AND item_id = ? AND step = ?", feed.id,
            edit.itemID, Int64(edit.step))
    }

    /// The step and time of the item's last pending edit, detached ones included (a new edit goes
    /// after them all), or nil when it has none.
    package func lastPendingEdit(
        ofItem itemID: String, in feed: FeedRecord
    ) throws(StorageError) -> (
        step: Int, createdAt: Date
    )? {
        let sql = """
            SELECT step, created_at FROM pending_edit WHERE feed_id = ? AND item_id = ? ORDER BY step DESC LIMIT 1
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, itemID)
            guard try statement.step() else { return nil }
            return (Int(clamping: statement.int64(0)), Date(millisecondsSince1970: statement.int64(1)))
        }
    }

    /// The item's queued edit with `key`, detached or not, or nil when the feed has none (or none an
    /// edit can be read from).
    package func queuedEdit(
        of itemID: String, key: UUID, in feed: FeedRecord
    ) throws(StorageError) -> PendingEditRecord? {
        let sql = """
            SELECT \(Self.pendingEditColumns)
            FROM pending_edit WHERE feed_id = ? AND item_id = ? AND idempotency_key = ?
            """
        return try connection.rows(sql, feed.id, itemID, key.uuidString, row: Self.pendingEditRow).first?.edit
    }

    /// Deletes every pending edit row of the feed that shows on its rows, well-formed or not; its
    /// detached edits stay.
    package func deleteShownPendingEdits(in feed: FeedRecord) throws(StorageError) {
        try connection.run("DELETE FROM pending_edit WHERE feed_id = ? AND detached = 0", feed.id)
    }

    /// How many of the newest dropped queued edits the file keeps.
    static let droppedEditsKept: Int64 = 200

    /// Keeps a queued edit dropped unsent in the outbox's history (the newest
    /// ``droppedEditsKept`` are kept); nothing in a file that predates the history.
    package func recordDroppedQueuedEdit(_ dropped: DroppedQueuedEdit) throws(StorageError) {
        guard try hasDroppedEditsTable() else { return }
        try connection.run(
            """
            INSERT INTO outbox_dropped (feed_key, item_id, outbox_kind, argument, idempotency_key, reason, dropped_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, dropped.feedKey, dropped.itemID, dropped.kind, dropped.argument, dropped.idempotencyKey,
            dropped.reason, dropped.droppedAt.millisecondsSince1970)
        try connection.run(
            "DELETE FROM outbox_dropped WHERE seq <= (SELECT max(seq) FROM outbox_dropped) - ?", Self.droppedEditsKept)
    }

    /// The queued edits dropped unsent, newest first; none in a file that predates the history.
    package func droppedQueuedEdits() throws(StorageError) -> [DroppedQueuedEdit] {
        guard try hasDroppedEditsTable() else { return [] }
        let sql = """
            SELECT feed_key, item_id, outbox_kind, argument, idempotency_key, reason, dropped_at
            FROM outbox_dropped ORDER BY seq DESC
            """
        return try connection.rows(sql) { statement in
            DroppedQueuedEdit(
                feedKey: statement.string(0) ?? "", itemID: statement.string(1) ?? "", kind: statement.string(2),
                argument: statement.string(3), idempotencyKey: statement.string(4), reason: statement.string(5) ?? "",
                droppedAt: Date(millisecondsSince1970: statement.int64(6)))
        }
    }

    /// The number of the history's newest drop (0 when it holds none), or nil in a file that
    /// predates the history: where a feed starts looking for drops other writers record
    /// (``DroppedEditsSeen``).
    package func droppedEditsMark() throws(StorageError) -> Int64? {
        guard try hasDroppedEditsTable() else { return nil }
        return try connection.int64("SELECT coalesce(max(seq), 0) FROM outbox_dropped")
    }

    /// The history's drops numbered after `mark`, every feed's, oldest first, as the edits they were.
    package func droppedEdits(
        after mark: Int64
    ) throws(StorageError) -> [(seq: Int64, feedKey: String, edit: MalformedPendingEdit)] {
        let sql = """
            SELECT seq, feed_key, item_id, outbox_kind, argument, idempotency_key, reason FROM outbox_dropped
            WHERE seq > ? ORDER BY seq
            """
        return try connection.rows(sql, mark) { statement in
            let edit = MalformedPendingEdit(
                itemID: statement.string(2) ?? "", problem: statement.string(6) ?? "", outboxKind: statement.string(3),
                argument: statement.string(4), idempotencyKey: statement.string(5))
            return (statement.int64(0), statement.string(1) ?? "", edit)
        }
    }

    /// The queued rows of the file that the outbox cannot read as edits (a file edited by hand): what
    /// `verify` and `pagedb outbox` name, detached ones too. None in a file that predates the outbox.
    package func unreadableQueuedEdits() throws(StorageError) -> [(feedKey: String, edit: MalformedPendingEdit)] {
        guard try hasOutboxColumns() else { return [] }
        var found: [(feedKey: String, edit: MalformedPendingEdit)] = []
        for feed in try feeds() {
            let rows = try pendingEditRowsIfMigrated(of: feed)
            found += rows.malformed.map { (feed.key, $0) }
            found += try unreadableDetachedEdits(of: feed).map { (feed.key, $0) }
        }
        return found
    }

    /// The feed's detached rows the outbox cannot send (a file edited by hand): a key that is not a
    /// UUID, a change that is none, or no kind to send it by. Their payloads are never applied, so only what sending needs
    /// is checked. None in a file that predates detached edits.
    package func unreadableDetachedEdits(of feed: FeedRecord) throws(StorageError) -> [MalformedPendingEdit] {
        guard try hasDetachedColumn() else { return [] }
        let sql = """
            SELECT item_id, step, kind, outbox_kind, argument, idempotency_key FROM pending_edit
            WHERE feed_id = ? AND detached = 1 ORDER BY created_at, item_id, step
            """
        return try connection.rows(sql, feed.id) { statement -> MalformedPendingEdit? in
            let (kind, outboxKind, key) = (statement.string(2), statement.string(3), statement.string(5))
            let problem =
                if kind.flatMap(PendingEditRecord.Kind.init(rawValue:)) == nil {
                    "a detached edit whose change \((kind ?? "NULL").debugDescription) is none"
                } else if outboxKind == nil {
                    "a detached edit made with a closure, which nothing sends"
                } else {
                    MalformedPendingEdit.problem(outboxKind: outboxKind, idempotencyKey: key)
                }
            guard let problem else { return nil }
            return MalformedPendingEdit(
                itemID: statement.string(0) ?? "", problem: problem, step: statement.int64(1), outboxKind: outboxKind,
                argument: statement.string(4), idempotencyKey: key, payloadsSound: true)
        }.compactMap { $0 }
    }

    private func hasDroppedEditsTable() throws(StorageError) -> Bool {
        try connection.int64("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'outbox_dropped'")
            == 1
    }
}

/// A queued edit dropped unsent, as the outbox's history keeps it.
package struct DroppedQueuedEdit: Sendable, Equatable {
    /// The key of the feed the edit was made in.
    package var feedKey: String
    /// The item's id, as text.
    package var itemID: String
    /// The kind the app named, as the row had it.
    package var kind: String?
    /// The kind's argument, as JSON text, as the row had it.
    package var argument: String?
    /// The idempotency key as the row had it (it may be what made the row unreadable).
    package var idempotencyKey: String?
    /// Why it was dropped, as a phrase.
    package var reason: String
    package var droppedAt: Date

    package init(
        feedKey: String, itemID: String, kind: String?, argument: String?, idempotencyKey: String?, reason: String,
        droppedAt: Date
    ) {
        self.feedKey = feedKey
        self.itemID = itemID
        self.kind = kind
        self.argument = argument
        self.idempotencyKey = idempotencyKey
        self.reason = reason
        self.droppedAt = droppedAt
    }
}
