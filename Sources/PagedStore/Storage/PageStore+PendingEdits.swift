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
}

/// Reading and writing pending optimistic edits.
extension PageStore {
    /// The feed's pending edits, or none when the file's schema predates them (`pagedb` reading an
    /// older file without migrating it).
    package func pendingEditsIfMigrated(of feed: FeedRecord) throws(StorageError) -> [PendingEditRecord] {
        try pendingEditRowsIfMigrated(of: feed).edits
    }

    /// ``pendingEditRows(of:)``, or none when the file's schema predates pending edits.
    package func pendingEditRowsIfMigrated(
        of feed: FeedRecord
    ) throws(StorageError) -> (edits: [PendingEditRecord], malformed: [MalformedPendingEdit]) {
        let tables = try connection.int64(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'pending_edit'")
        return tables == 1 ? try pendingEditRows(of: feed) : ([], [])
    }

    /// The feed's well-formed pending edits, oldest first (see ``pendingEditRows(of:)``).
    package func pendingEdits(of feed: FeedRecord) throws(StorageError) -> [PendingEditRecord] {
        try pendingEditRows(of: feed).edits
    }

    /// The feed's pending edit rows, oldest first: the well-formed ones as edits, and the ones no edit
    /// can come from (a file edited by hand, a faulty writer) with what is wrong with them. A
    /// malformed row is never applied: it could only write something other than the server's value.
    package func pendingEditRows(
        of feed: FeedRecord
    ) throws(StorageError) -> (edits: [PendingEditRecord], malformed: [MalformedPendingEdit]) {
        let sql = """
            SELECT item_id, kind, base, base_section, edited, above_id, below_id, created_at FROM pending_edit
            WHERE feed_id = ? ORDER BY created_at, item_id
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            var edits: [PendingEditRecord] = []
            var malformed: [MalformedPendingEdit] = []
            while try statement.step() {
                let itemID = statement.string(0) ?? ""
                let kind = statement.string(1)
                let (base, edited) = (statement.data(2), statement.data(4))
                if let problem = MalformedPendingEdit.problem(kind: kind, base: base, edited: edited) {
                    malformed.append(MalformedPendingEdit(itemID: itemID, problem: problem))
                    continue
                }
                guard let kind = kind.flatMap(PendingEditRecord.Kind.init(rawValue:)) else { continue }
                edits.append(
                    PendingEditRecord(
                        itemID: itemID, kind: kind, base: base, baseSection: statement.string(3), edited: edited,
                        above: statement.string(5), below: statement.string(6),
                        createdAt: Date(millisecondsSince1970: statement.int64(7))))
            }
            return (edits, malformed)
        }
    }

    /// Writes a pending edit, replacing the item's previous one.
    package func savePendingEdit(_ edit: PendingEditRecord, in feed: FeedRecord) throws(StorageError) {
        let sql = """
            INSERT OR REPLACE INTO pending_edit (feed_id, item_id, kind, base, base_section, edited, above_id, below_id, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, edit.itemID)
            try statement.bind(3, edit.kind.rawValue)
            try bindPayload(edit.base, at: 4, in: statement)
            try statement.bind(5, edit.baseSection)
            try bindPayload(edit.edited, at: 6, in: statement)
            try statement.bind(7, edit.above)
            try statement.bind(8, edit.below)
            try statement.bind(9, edit.createdAt.millisecondsSince1970)
            try statement.step()
        }
    }

    /// The ids of the rows right above and right below `position`.
    package func neighbours(
        of position: Int64, in feed: FeedRecord
    ) throws(StorageError) -> (above: String?, below: String?) {
        (
            try window(of: feed, from: .before(position: position), limit: 1).first?.itemID,
            try window(of: feed, from: .after(position: position), limit: 1).first?.itemID
        )
    }

    /// Forgets the item's pending edit.
    package func deletePendingEdit(itemID: String, in feed: FeedRecord) throws(StorageError) {
        try connection.run("DELETE FROM pending_edit WHERE feed_id = ? AND item_id = ?", feed.id, itemID)
    }

    private func bindPayload(_ payload: Data?, at index: Int32, in statement: Statement) throws(StorageError) {
        if let payload {
            try statement.bind(index, payload, asText: textPayloads)
        } else {
            try statement.bind(index, nil as String?)
        }
    }
}
