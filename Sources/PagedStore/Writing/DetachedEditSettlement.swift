import Foundation

/// Settling a queued edit that shows on no row (its rows left under it, see ``PendingEditFate``),
/// the part of ``EditSettlement`` for an edit that does not show: the edit goes, nothing of its own
/// feed rolls back. A rejected update of a shared item was spread to the other feeds holding the
/// item while it showed: ``SharedItemSpread/undo(detached:from:in:carries:)`` puts their copy back.
enum DetachedEditSettlement {
    /// Settles the item's queued edit with `key` of `feed` when it is detached (or already gone), in
    /// the caller's write transaction.
    /// - Returns: Nil when the edit shows on a row (the feed's own settlement is the one for it);
    ///   else what the settlement wrote of the other feeds, for the change record.
    static func settle(
        _ itemID: String, key: UUID, confirmed: Bool, in feed: FeedRecord, store: PageStore
    ) throws -> [RecordedWrite]? {
        guard let edit = try store.queuedEdit(of: itemID, key: key, in: feed) else {
            // Gone, or a row no edit can be read from: whatever holds the key goes.
            try store.deleteQueuedEdit(itemID: itemID, key: key, in: feed)
            return []
        }
        if try store.pendingEdits(ofItem: itemID, in: feed).contains(where: { $0.queued?.idempotencyKey == key }) {
            return nil
        }
        try store.deleteQueuedEdit(itemID: itemID, key: key, in: feed)
        guard !confirmed else { return [] }
        return try SharedItemSpread.undo(detached: [edit], from: feed, in: store)
    }
}
