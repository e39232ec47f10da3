import Foundation

/// Settling a queued edit that shows on no row (its rows left under it, see ``PendingEditFate``),
/// the part of ``EditSettlement`` for an edit that does not show: the edit goes, nothing of its own
/// feed rolls back. A rejected update of a shared item was spread to the other feeds holding the
/// item while it showed: ``SharedItemSpread/undo(detached:from:in:carries:)`` puts their copy back.
enum DetachedEditSettlement {
    /// What a settlement of a detached edit wrote.
    struct Settled {
        /// What it wrote of the other feeds sharing the item, for the change record.
        var otherFeeds: [RecordedWrite] = []
        /// The item's later edits a rejected insert took with it, never sent (see
        /// ``PendingEditStack/goingWithRejected(_:later:)``).
        var dropped: [MalformedPendingEdit] = []
    }

    /// Settles the item's queued edit with `key` of `feed` when it is detached (or already gone), in
    /// the caller's write transaction.
    /// - Returns: Nil when the edit shows on a row (the feed's own settlement is the one for it).
    static func settle(
        _ itemID: String, key: UUID, confirmed: Bool, in feed: FeedRecord, store: PageStore
    ) throws -> Settled? {
        guard let edit = try store.queuedEdit(of: itemID, key: key, in: feed) else {
            // Gone, or a row no edit can be read from: whatever holds the key goes.
            try store.deleteQueuedEdit(itemID: itemID, key: key, in: feed)
            return Settled()
        }
        let shown = try store.pendingEdits(ofItem: itemID, in: feed)
        if shown.contains(where: { $0.queued?.idempotencyKey == key }) { return nil }
        try store.deleteQueuedEdit(itemID: itemID, key: key, in: feed)
        guard !confirmed else { return Settled() }
        // Only the edits made on its row before the row left go with it: one made since stands on a
        // row the feed shows (the item inserted again, or the server's), a stack of its own.
        let shownSteps = Set(shown.map(\.step))
        let later = try store.pendingEditRows(of: feed, item: itemID, detachedColumn: false).edits
            .filter { $0.step > edit.step && !shownSteps.contains($0.step) }
        let dropped = PendingEditStack.goingWithRejected(edit, later: later)
        for gone in dropped { try store.deletePendingEdit(itemID: gone.itemID, step: gone.step, in: feed) }
        return Settled(otherFeeds: try SharedItemSpread.undo(detached: [edit], from: feed, in: store), dropped: dropped)
    }
}
