package import Foundation

/// An optimistic local edit whose server call has not answered yet, as the cache keeps it.
package struct PendingEditRecord: Sendable, Equatable {
    /// What the edit does to its row.
    package enum Kind: String, Sendable {
        case update, insert, remove
    }

    /// The item's id, as text.
    package var itemID: String
    package var kind: Kind
    /// The server's payload to roll back to (nil for an insert).
    package var base: Data?
    /// The section of `base` (for an insert, of the inserted item).
    package var baseSection: String?
    /// The payload shown while the edit is pending (nil for a remove).
    package var edited: Data?
    /// For a remove or an insert, the ids of the rows around the item, to put it back between them.
    package var above: String?
    package var below: String?
    package var createdAt: Date
    /// How the outbox sends the edit; nil for an edit whose server call is a closure.
    package var queued: QueuedEdit? = nil
    /// The edit's place among its item's pending edits, from 0 (only edits made by kind stack).
    package var step: Int = 0
    /// The section of `edited`: the item's section key after the edit.
    package var editedSection: String? = nil
    /// For a removal, the position its item's row had when it was removed (by the user, or again by
    /// a page that listed the item): a rollback puts the row back there while the place is free and
    /// the row below it is still the one standing for its neighbour below (see
    /// ``PendingEditReplay/goesBackAtItsPosition(_:above:below:firstRowFromRemoved:)``). Nil when
    /// not known (a file from before it was kept).
    package var removedPosition: Int64? = nil
    /// For a removal, whether its item's row was one the app made up (a local insert): a rollback
    /// puts it back as such, so that pages that skip it prove nothing (a server's row put back is
    /// proved deleted by the next page over its place that does not list it).
    package var removedLocal = false
}

/// What the outbox keeps of an edit made by kind, beside the edit itself.
package struct QueuedEdit: Sendable, Equatable {
    /// The kind the app named, whose handler sends the edit.
    package var kind: String
    /// The kind's argument, as JSON.
    package var argument: Data
    /// Made once with the edit; the server applies the edit once per key.
    package var idempotencyKey: UUID
    /// How many sends failed and were kept for a retry.
    package var attempts: Int = 0
    /// What the last failed send said.
    package var lastError: String? = nil
    /// The earliest time of the next send after a failed one, kept so that a relaunch waits too.
    package var nextAttemptAt: Date? = nil

    package init(
        kind: String, argument: Data, idempotencyKey: UUID, attempts: Int = 0, lastError: String? = nil,
        nextAttemptAt: Date? = nil
    ) {
        self.kind = kind
        self.argument = argument
        self.idempotencyKey = idempotencyKey
        self.attempts = attempts
        self.lastError = lastError
        self.nextAttemptAt = nextAttemptAt
    }

    /// A count of failed sends as the file holds it, within what sends can count: a file edited by
    /// hand may hold any integer, and the outbox adds one to the count it reads.
    static func attempts(fromFile counted: Int64) -> Int {
        Int(min(max(counted, 0), Int64(Int32.max)))
    }
}

/// Reading and writing pending optimistic edits.
extension PageStore {
    /// The feed's pending edits, or none when the file's schema predates them (`pagedb` reading an
    /// older file without migrating it).
    package func pendingEditsIfMigrated(of feed: FeedRecord) throws(StorageError) -> [PendingEditRecord] {
        try pendingEditRowsIfMigrated(of: feed).edits
    }

    /// ``pendingEditRows(of:item:outboxColumns:nextAttemptColumn:stepColumn:detachedColumn:removedPositionColumn:removedLocalColumn:)``, or none when the file's schema predates pending edits.
    package func pendingEditRowsIfMigrated(
        of feed: FeedRecord
    ) throws(StorageError) -> (edits: [PendingEditRecord], malformed: [MalformedPendingEdit]) {
        let tables = try connection.int64(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'pending_edit'")
        guard tables == 1 else { return ([], []) }
        return try pendingEditRows(
            of: feed, outboxColumns: try hasOutboxColumns(), nextAttemptColumn: try hasNextAttemptColumn(),
            stepColumn: try hasStepColumn(), detachedColumn: try hasDetachedColumn(),
            removedPositionColumn: try hasRemovedPositionColumn(), removedLocalColumn: try hasRemovedLocalColumn())
    }

    /// Whether the file's `pending_edit` has the outbox's columns (a file `pagedb` reads without
    /// migrating it may predate them).
    package func hasOutboxColumns() throws(StorageError) -> Bool {
        try connection.int64(
            "SELECT count(*) FROM pragma_table_info('pending_edit') WHERE name = 'idempotency_key'") == 1
    }

    /// Whether the file's `pending_edit` keeps the next attempt's time (a file `pagedb` reads without
    /// migrating it may predate it).
    package func hasNextAttemptColumn() throws(StorageError) -> Bool {
        try connection.int64(
            "SELECT count(*) FROM pragma_table_info('pending_edit') WHERE name = 'next_attempt_at'") == 1
    }

    /// Whether the file's `pending_edit` numbers an item's edits (a file `pagedb` reads without
    /// migrating it may predate it: each item has one edit there).
    package func hasStepColumn() throws(StorageError) -> Bool {
        try connection.int64("SELECT count(*) FROM pragma_table_info('pending_edit') WHERE name = 'step'") == 1
    }

    /// Whether the file's `pending_edit` keeps where a removed row stood (a file `pagedb` reads
    /// without migrating it may predate it).
    package func hasRemovedPositionColumn() throws(StorageError) -> Bool {
        try connection.int64(
            "SELECT count(*) FROM pragma_table_info('pending_edit') WHERE name = 'removed_position'") == 1
    }

    /// Whether the file's `pending_edit` keeps whether a removed row was local (a file `pagedb` reads
    /// without migrating it may predate it).
    package func hasRemovedLocalColumn() throws(StorageError) -> Bool {
        try connection.int64(
            "SELECT count(*) FROM pragma_table_info('pending_edit') WHERE name = 'removed_local'") == 1
    }

    /// Whether the feed's row of `itemID` is one the app made up (a local insert); false when the
    /// feed has no row of it.
    package func isLocalRow(_ itemID: String, in feed: FeedRecord) throws(StorageError) -> Bool {
        try connection.integer("SELECT flags & 1 FROM item WHERE feed_id = ? AND item_id = ?", feed.id, itemID) == 1
    }

    /// The outbox's columns of `pending_edit` as the file has them, NULL (or 0 attempts) for those it
    /// predates, in the order ``queuedEdit(_:from:)`` reads them.
    static func outboxColumns(_ outbox: Bool, nextAttempt: Bool, table: String = "") -> String {
        let prefix = table.isEmpty ? "" : table + "."
        let columns =
            outbox
            ? ["outbox_kind", "argument", "idempotency_key", "attempts", "last_error"].map { prefix + $0 }
            : ["NULL", "NULL", "NULL", "0", "NULL"]
        return (columns + [outbox && nextAttempt ? prefix + "next_attempt_at" : "NULL"]).joined(separator: ", ")
    }

    /// The feed's well-formed pending edits, oldest first (see ``pendingEditRows(of:item:outboxColumns:nextAttemptColumn:stepColumn:detachedColumn:removedPositionColumn:removedLocalColumn:)``).
    package func pendingEdits(of feed: FeedRecord) throws(StorageError) -> [PendingEditRecord] {
        try pendingEditRows(of: feed).edits
    }

    /// The items the feed's pending removals hide: a page that lists one lists neither a row of the
    /// feed nor an item it lacks.
    package func hiddenItemIDs(in feed: FeedRecord) throws(StorageError) -> Set<String> {
        Set(try pendingEdits(of: feed).lazy.filter { $0.kind == .remove }.map(\.itemID))
    }

    /// The feed's pending edit rows that show on its rows (not detached, see ``detach(_:in:)``),
    /// oldest first: the well-formed ones as edits, and the ones no edit can come from (a file edited
    /// by hand, a faulty writer) with what is wrong with them. A malformed row is never applied: it
    /// could only write something other than the server's value. With `itemID`, only that item's,
    /// read by the table's key.
    package func pendingEditRows(
        of feed: FeedRecord, item itemID: String? = nil, outboxColumns: Bool = true, nextAttemptColumn: Bool = true,
        stepColumn: Bool = true, detachedColumn: Bool = true, removedPositionColumn: Bool = true,
        removedLocalColumn: Bool = true
    ) throws(StorageError) -> (edits: [PendingEditRecord], malformed: [MalformedPendingEdit]) {
        let outbox = Self.outboxColumns(outboxColumns, nextAttempt: nextAttemptColumn)
        let (step, editedSection) = stepColumn ? ("step", "edited_section") : ("0", "base_section")
        let sql = """
            SELECT item_id, kind, base, base_section, edited, above_id, below_id, created_at, \(outbox), \(step),
                \(editedSection), \(removedPositionColumn ? "removed_position" : "NULL"),
                \(removedLocalColumn ? "removed_local" : "0")
            FROM pending_edit WHERE feed_id = ? \(itemID == nil ? "" : "AND item_id = ?") \
            \(detachedColumn ? "AND detached = 0" : "")
            ORDER BY created_at, item_id, \(step)
            """
        let rows =
            if let itemID {
                try connection.rows(sql, feed.id, itemID, row: Self.pendingEditRow)
            } else {
                try connection.rows(sql, feed.id, row: Self.pendingEditRow)
            }
        return (rows.compactMap(\.edit), rows.compactMap(\.malformed))
    }

    /// The item's well-formed pending edits that show on its row, in step order (its stack), read by
    /// the table's key: what an edit, a settlement or a spread of one item needs, without the feed's
    /// other edits.
    package func pendingEdits(ofItem itemID: String, in feed: FeedRecord) throws(StorageError) -> [PendingEditRecord] {
        let sql = """
            SELECT \(Self.pendingEditColumns)
            FROM pending_edit WHERE feed_id = ? AND item_id = ? AND detached = 0 ORDER BY step
            """
        return try connection.rows(sql, feed.id, itemID, row: Self.pendingEditRow).compactMap(\.edit)
    }

    /// The columns of `pending_edit` that ``pendingEditRow(_:)`` reads, in its order, in a file that
    /// has every one of them (a migrated file: the store's own).
    static let pendingEditColumns = """
        item_id, kind, base, base_section, edited, above_id, below_id, created_at, \
        \(outboxColumns(true, nextAttempt: true)), step, edited_section, removed_position, removed_local
        """

    /// One pending edit row, read as an edit or as what is wrong with it.
    static func pendingEditRow(
        _ statement: Statement
    ) -> (edit: PendingEditRecord?, malformed: MalformedPendingEdit?) {
        let itemID = statement.string(0) ?? ""
        let kind = statement.string(1)
        let (base, edited) = (statement.data(2), statement.data(4))
        let payloadProblem = MalformedPendingEdit.problem(kind: kind, base: base, edited: edited)
        let problem =
            payloadProblem
            ?? MalformedPendingEdit.problem(outboxKind: statement.string(8), idempotencyKey: statement.string(10))
        if let problem {
            return (
                nil,
                MalformedPendingEdit(
                    itemID: itemID, problem: problem, step: statement.int64(14), outboxKind: statement.string(8),
                    argument: statement.string(9), idempotencyKey: statement.string(10),
                    payloadsSound: payloadProblem == nil)
            )
        }
        guard let kind = kind.flatMap(PendingEditRecord.Kind.init(rawValue:)) else { return (nil, nil) }
        let edit = PendingEditRecord(
            itemID: itemID, kind: kind, base: base, baseSection: statement.string(3), edited: edited,
            above: statement.string(5), below: statement.string(6),
            createdAt: Date(millisecondsSince1970: statement.int64(7)), queued: queuedEdit(statement, from: 8),
            step: Int(clamping: statement.int64(14)), editedSection: statement.string(15),
            removedPosition: statement.isNull(16) ? nil : statement.int64(16), removedLocal: statement.int64(17) != 0)
        return (edit, nil)
    }

    /// The outbox's part of a pending edit row whose outbox columns start at `column`: nil for a
    /// closure edit, and for a row whose key is not a UUID (a file edited by hand), which then stays
    /// a closure edit that nothing sends rather than one sent under a key the server never saw.
    static func queuedEdit(_ statement: Statement, from column: Int32) -> QueuedEdit? {
        guard let kind = statement.string(column), let key = statement.string(column + 2).flatMap(UUID.init)
        else { return nil }
        return QueuedEdit(
            kind: kind, argument: Data((statement.string(column + 1) ?? "null").utf8), idempotencyKey: key,
            attempts: QueuedEdit.attempts(fromFile: statement.int64(column + 3)),
            lastError: statement.string(column + 4),
            nextAttemptAt: statement.isNull(column + 5) ? nil : Date(millisecondsSince1970: statement.int64(column + 5))
        )
    }

    /// Writes a pending edit, replacing the one at its item's step; a send lease the row holds stays
    /// (an edit rebased while it is sent is still being sent), and so does a removal's place proved
    /// wrong while it names the same rows, or lost (``losePendingRemovalPlaces(in:)``) while it also
    /// keeps no position.
    package func savePendingEdit(_ edit: PendingEditRecord, in feed: FeedRecord) throws(StorageError) {
        let sql = """
            INSERT INTO pending_edit (feed_id, item_id, step, kind, base, base_section, edited,
                edited_section, above_id, below_id, created_at, outbox_kind, argument, idempotency_key, attempts,
                last_error, next_attempt_at, removed_position, removed_local)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (feed_id, item_id, step) DO UPDATE SET kind = excluded.kind, base = excluded.base,
                base_section = excluded.base_section, edited = excluded.edited,
                edited_section = excluded.edited_section, above_id = excluded.above_id,
                below_id = excluded.below_id, created_at = excluded.created_at, outbox_kind = excluded.outbox_kind,
                argument = excluded.argument, idempotency_key = excluded.idempotency_key,
                attempts = excluded.attempts, last_error = excluded.last_error,
                next_attempt_at = excluded.next_attempt_at, removed_position = excluded.removed_position,
                removed_local = excluded.removed_local,
                sending_by = iif(pending_edit.idempotency_key IS excluded.idempotency_key, pending_edit.sending_by, NULL),
                sending_until = iif(
                    pending_edit.idempotency_key IS excluded.idempotency_key, pending_edit.sending_until, NULL),
                place_disproved = iif(
                    pending_edit.above_id IS excluded.above_id AND pending_edit.below_id IS excluded.below_id,
                    pending_edit.place_disproved, 0),
                place_lost = iif(
                    pending_edit.above_id IS excluded.above_id AND pending_edit.below_id IS excluded.below_id
                        AND pending_edit.removed_position IS excluded.removed_position,
                    pending_edit.place_lost, 0)
            """
        let queued = edit.queued
        try connection.run(
            sql, feed.id, edit.itemID, Int64(edit.step), edit.kind.rawValue, payload(edit.base), edit.baseSection,
            payload(edit.edited), edit.editedSection, edit.above, edit.below, edit.createdAt.millisecondsSince1970,
            queued?.kind,
            queued.map { String(decoding: $0.argument, as: UTF8.self) }, queued?.idempotencyKey.uuidString,
            Int64(queued?.attempts ?? 0), queued?.lastError, queued?.nextAttemptAt?.millisecondsSince1970,
            edit.removedPosition, Int64(edit.removedLocal ? 1 : 0))
    }

    /// Whether the feed has a pending edit that shows on its rows: one look at the table's key, no
    /// edit read.
    package func hasPendingEdits(in feed: FeedRecord) throws(StorageError) -> Bool {
        try connection.withStatement(
            "SELECT EXISTS (SELECT 1 FROM pending_edit WHERE feed_id = ? AND detached = 0)"
        ) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            return try statement.step() && statement.int64(0) == 1
        }
    }

    /// Forgets every pending edit that shows on the item's row (its detached edits stay queued).
    package func deletePendingEdits(itemID: String, in feed: FeedRecord) throws(StorageError) {
        try connection.run(
            "DELETE FROM pending_edit WHERE feed_id = ? AND item_id = ? AND detached = 0", feed.id, itemID)
    }

    /// Forgets the pending edits that show on the item's row from `step` on, the ones before it
    /// staying (its detached edits stay queued).
    package func deletePendingEdits(itemID: String, fromStep step: Int64, in feed: FeedRecord) throws(StorageError) {
        try connection.run(
            "DELETE FROM pending_edit WHERE feed_id = ? AND item_id = ? AND step >= ? AND detached = 0", feed.id,
            itemID,
            step)
    }

    /// Forgets the item's pending removal, the edits before it staying.
    package func deletePendingRemoval(itemID: String, in feed: FeedRecord) throws(StorageError) {
        try connection.run(
            "DELETE FROM pending_edit WHERE feed_id = ? AND item_id = ? AND kind = 'remove' AND detached = 0", feed.id,
            itemID)
    }

    /// Forgets one pending edit, the item's others staying.
    package func deletePendingEdit(_ edit: PendingEditRecord, in feed: FeedRecord) throws(StorageError) {
        try deletePendingEdit(itemID: edit.itemID, step: Int64(edit.step), in: feed)
    }

    /// Forgets the item's pending edit row at `step`, whatever it holds.
    package func deletePendingEdit(itemID: String, step: Int64, in feed: FeedRecord) throws(StorageError) {
        try connection.run(
            "DELETE FROM pending_edit WHERE feed_id = ? AND item_id = ? AND step = ?", feed.id, itemID, step)
    }
}
