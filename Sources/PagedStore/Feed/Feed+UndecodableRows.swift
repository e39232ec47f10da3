import Foundation

/// Rows the item codec cannot decode (see ``UndecodableRow``): removed from the cache before any
/// snapshot shows them, so that the row count, the window, the change sets and the index paths
/// always agree on the rows there are.
extension Feed {
    /// Removes `rows` in one transaction and reports them; `record` then holds the feed without them.
    /// - Returns: The rows removed, with their indices before the removal (ascending), of the file's
    ///   rows; rows no longer where they were read are left alone. `overForeignWrite` says another
    ///   `Feed` wrote the feed since this one last did: the indices are not those of the rows shown.
    /// - Parameter inARefreshedPage: Whether the rows are those of the first page a refresh just
    ///   wrote (see ``UndecodableRow/remove(_:from:in:at:inARefreshedPage:)``).
    func removeUndecodable(
        _ rows: [UndecodableRow], inARefreshedPage: Bool = false
    ) throws -> (removed: [(index: Int, row: UndecodableRow)], overForeignWrite: Bool) {
        // A read-only store leaves them in the file: the window stops above them (see `LoadedRows`).
        guard !rows.isEmpty, !queue.isReadOnly else { return ([], false) }
        let removal = try writer.remove(undecodable: rows, over: loaded.record, inARefreshedPage: inARefreshedPage) {
            _, feed in feed
        }
        loaded.record = removal.read
        reportRemoval(removal)
        return (removal.removed, removal.overForeignWrite)
    }

    /// Removes `rows`, which a follow found in the file's row `file` before taking it, in a write of
    /// the feed's own, and reports them. The feed keeps the row it holds: the follow that comes next
    /// takes the file's rows, with this removal among the recorded changes it composes, so nothing
    /// in memory changes when the write fails.
    /// - Returns: Whether any was removed (none when another writer moved them meanwhile).
    func removeBeforeFollowing(_ rows: [UndecodableRow], foundIn file: FeedRecord) throws -> Bool {
        let removal = try writer.remove(undecodable: rows, over: file) { _, feed in feed }
        reportRemoval(removal)
        return !removal.removed.isEmpty
    }

    /// Reports the rows a removal removed and the pending edits it dropped with them.
    private func reportRemoval<Read>(_ removal: UndecodableRemoval<Read>) {
        if let event = Self.removalEvent(removal.removed.map(\.row), generation: activity.generation) {
            report(event.kind, nil, generation: event.generation, error: event.error, itemIDs: event.itemIDs)
        }
        reportDropped(removal.droppedEdits)
    }

    /// Removes `rows` and emits their deletion as a change of its own, with the window read again.
    /// - Returns: Whether any was removed.
    func dropUndecodable(_ rows: [UndecodableRow]) throws -> Bool {
        let (removed, foreign) = try removeUndecodable(rows)
        guard !removed.isEmpty || foreign else { return false }
        let commit = Commit(record: loaded.record, change: RowChange(deleted: removed.map(\.index)), window: .reload)
        try apply(foreign ? commit.overForeignWrite() : commit)
        return !removed.isEmpty
    }

    /// Decodes a row read from the cache.
    /// - Throws: ``UndecodableRowError`` when the codec refuses it.
    func decode(_ stored: StoredItem) throws -> Item {
        do {
            return try codec.decode(stored.payload)
        } catch {
            throw UndecodableRowError(
                row: UndecodableRow(itemID: stored.itemID, position: stored.position, error: "\(error)"))
        }
    }

    /// The event that reports `rows` removed, or nil when there are none.
    static func removalEvent(_ rows: [UndecodableRow], generation: Int64) -> FeedEvent? {
        guard let first = rows.first else { return nil }
        let error = FeedError(
            .codec,
            message: "\(rows.count) cached row(s) could not be decoded and were removed; the first, "
                + "\(first.itemID.debugDescription): \(first.error)")
        return FeedEvent(
            kind: .undecodableRowsRemoved, request: nil, generation: generation, rowsChanged: rows.count,
            duration: nil, error: error, itemIDs: rows.map(\.itemID))
    }
}

/// A row met inside a transaction that the codec cannot decode: the transaction is rolled back, and
/// the caller removes the row (``Feed/dropUndecodable(_:)``).
struct UndecodableRowError: Error {
    let row: UndecodableRow
}
