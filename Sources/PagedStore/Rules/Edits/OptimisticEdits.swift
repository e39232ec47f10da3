import Foundation

/// What a feed keeps in memory of its optimistic edits: the changes to re-apply on top of a server
/// value that lands while an edit is pending. The edits themselves are in the cache (`pending_edit`).
struct OptimisticEdits<Item: Sendable>: Sendable {
    /// The change each pending update made, by its item's stored id and its step among the item's
    /// edits; absent after a relaunch (the edit's stored change is carried instead, see
    /// ``PayloadRebase``).
    var changes: [PendingEditKey: @Sendable (inout Item) -> Void] = [:]
    /// Whether the cache may hold pending edits for this feed: unknown (true) until first read, so a
    /// feed with none pays one read, then nothing per commit.
    var mayHavePending = true
}

/// One pending edit of a feed: its item's stored id, its step among the item's edits, and for an
/// edit made by kind its idempotency key, so that the change of an edit settled by another store
/// is never taken for the change of the next edit at its step.
struct PendingEditKey: Hashable, Sendable {
    var itemID: String
    var step: Int
    var idempotencyKey: UUID?

    init(itemID: String, step: Int, idempotencyKey: UUID?) {
        self.itemID = itemID
        self.step = step
        self.idempotencyKey = idempotencyKey
    }

    init(_ edit: PendingEditRecord) {
        self.init(itemID: edit.itemID, step: edit.step, idempotencyKey: edit.queued?.idempotencyKey)
    }
}

extension RowChange {
    /// Takes new row `row` out of the change (a row the commit inserted that a pending removal removes
    /// again); new rows below it move up. Returns false when the change did not insert it.
    mutating func withdrawInsertion(ofNewRow row: Int) -> Bool {
        guard !isFullReload, let index = inserted.firstIndex(of: row) else { return false }
        inserted.remove(at: index)
        inserted = inserted.map { $0 > row ? $0 - 1 : $0 }
        moved = moved.map { (from: $0.from, to: $0.to > row ? $0.to - 1 : $0.to) }
        return true
    }

    /// Adds an insertion of new row `row` (a pending insert put back after the commit dropped it);
    /// new rows at or below it move down.
    mutating func addInsertion(ofNewRow row: Int) {
        guard !isFullReload else { return }
        inserted = (inserted.map { $0 >= row ? $0 + 1 : $0 } + [row]).sorted()
        moved = moved.map { (from: $0.from, to: $0.to >= row ? $0.to + 1 : $0.to) }
    }
}
