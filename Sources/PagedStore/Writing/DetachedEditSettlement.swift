import Foundation

/// Settling a queued edit that shows on no row (its rows left under it, see ``PendingEditFate``),
/// the part of ``EditSettlement`` for an edit that does not show: the edit goes, nothing of its own feed rolls back. A rejected update of a shared item was spread
/// to the other feeds holding the item while it showed; the rows that still show it show its base
/// (the server's copy it was made on) again, and their lists follow.
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
        guard !confirmed, edit.kind == .update, let type = feed.sharedType, let base = edit.base,
            let edited = edit.edited
        else { return [] }
        return try restore(
            base, section: edit.baseSection, of: itemID, shownAs: edited, sharedAs: type, from: feed, in: store)
    }

    /// Makes the other feeds' rows of the item that show `shown` (and have no edit of it pending)
    /// show `base`, with a reload each.
    private static func restore(
        _ base: Data, section: String?, of itemID: String, shownAs shown: Data, sharedAs type: String,
        from feed: FeedRecord, in store: PageStore
    ) throws -> [RecordedWrite] {
        var written: [RecordedWrite] = []
        for holder in try store.sharedHolders(of: itemID, sharedAs: type, except: feed.id)
        where holder.pendingEdit == nil {
            guard let other = try store.feed(id: holder.feedID),
                try store.items(withIDs: [itemID], in: other)[itemID]?.payload == shown,
                try store.replaceSharedCopy(
                    itemID, showing: base, section: section, in: holder.feedID, at: holder.position)
            else { continue }
            let row = try store.rowIndex(ofPosition: holder.position, in: other)
            var after = other
            after.hasSections = after.hasSections || section != nil
            try store.save(&after)
            written.append(
                RecordedWrite(
                    before: other, after: after, change: RowChange(reloaded: [row], reloadedIDs: [itemID])))
        }
        return written
    }
}
