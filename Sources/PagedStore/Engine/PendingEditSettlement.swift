import Foundation

/// Settling one pending edit in the caller's write transaction: what a feed does when its server
/// call answers, and what the store's ``Outbox`` does for a feed that is not open.
///
/// It needs no codec: a rollback writes back the server's payload the edit keeps
/// (``PendingEditRecord/base``), byte for byte, so one edit settles alike through a `Feed` or
/// through the outbox alone.
enum PendingEditSettlement {
    /// Deletes `pending` and, unless it was `confirmed`, rolls its row back to the server's value.
    /// - Returns: The change to the feed's rows, or nil when the rows did not change (confirmed, or
    ///   nothing left to roll back).
    static func settle(
        _ pending: PendingEditRecord, confirmed: Bool, in store: PageStore, feed: inout FeedRecord
    ) throws -> RowChange? {
        let itemID = pending.itemID
        try store.deletePendingEdit(itemID: itemID, in: feed)
        if confirmed { return nil }
        // Only an update was shown in the other feeds sharing the item, which its rollback must undo
        // there too; a removal or an insert stayed this feed's own, and so does its rollback.
        if pending.kind != .update { store.sharing?.logging = false }
        switch pending.kind {
        case .update:
            guard let base = pending.base,
                let stored = try store.items(withIDs: [itemID], in: feed)[itemID],
                try store.updateItem(
                    EncodedItem(itemID: itemID, section: pending.baseSection, payload: base), in: &feed)
            else { return nil }
            return RowChange(
                reloaded: [try store.rowIndex(ofPosition: stored.position, in: feed)], reloadedIDs: [itemID])
        case .insert:
            guard let removed = try store.removeItem(itemID, from: &feed) else { return nil }
            return RowChange(deleted: [removed.row])
        case .remove:
            // Both rows around it gone: the list was replaced, and its pages bring the item back in order.
            guard let base = pending.base, try store.items(withIDs: [itemID], in: feed)[itemID] == nil,
                let row = try row(for: pending, in: feed, store)
            else { return nil }
            let item = EncodedItem(itemID: itemID, section: pending.baseSection, payload: base)
            // The server's row, put back: pages that no longer list it prove it deleted.
            let position = try store.insertItem(item, atRow: row, local: false, in: &feed)
            return RowChange(inserted: [try store.rowIndex(ofPosition: position, in: feed)])
        }
    }

    /// The row that puts a pending edit's item back between the rows it had around it (see
    /// ``PendingEditReplay/rowBetween(aboveRow:belowRow:serverRow:named:)``).
    static func row(for edit: PendingEditRecord, in feed: FeedRecord, _ store: PageStore) throws -> Int? {
        let named = try store.items(withIDs: [edit.above, edit.below].compactMap { $0 }, in: feed)
        func row(of id: String?) throws -> Int? {
            guard let position = id.flatMap({ named[$0]?.position }) else { return nil }
            return try store.rowIndex(ofPosition: position, in: feed)
        }
        return PendingEditReplay.rowBetween(
            aboveRow: try row(of: edit.above), belowRow: try row(of: edit.below), serverRow: edit.kind == .remove,
            named: (edit.above != nil, edit.below != nil))
    }
}
