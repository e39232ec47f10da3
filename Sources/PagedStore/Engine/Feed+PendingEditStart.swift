import Foundation

/// Starting a pending edit, closure or queued: shown at once, stored with what a rollback needs.
extension Feed {
    /// Applies `change` to the item and stores the pending update (with `queued`, one the outbox
    /// sends), in one write.
    /// - Returns: The edited item, or nil when the feed lacks it.
    func beginUpdate(
        _ storedID: String, _ change: @escaping @Sendable (inout Item) -> Void, queued: QueuedEdit?
    ) throws -> Item? {
        var edited: Item?
        // Shown in every feed sharing the item, as a copy that another feed's pending edit of it
        // keeps as its base.
        let found = try editDecodable(spreading: true) { store, feed in
            guard let stored = try store.items(withIDs: [storedID], in: feed)[storedID] else { return nil }
            try Self.refuseSecondEdit(of: storedID, in: feed, store: store)
            var item = try decode(stored)
            change(&item)
            let encoded = try self.encode([item]).encoded[0]
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: storedID, kind: .update, base: stored.payload, baseSection: stored.section,
                    edited: encoded.payload, createdAt: Date(), queued: queued),
                in: feed)
            _ = try store.updateItem(encoded, in: &feed)
            edited = item
            return RowChange(
                reloaded: [try store.rowIndex(ofPosition: stored.position, in: feed)], reloadedIDs: [storedID])
        }
        guard found, let edited else { return nil }
        optimistic.changes[storedID] = change
        optimistic.mayHavePending = true
        return edited
    }

    /// Inserts the item as row `row` and stores the pending insert, in one write.
    /// - Returns: The item's stored id.
    func beginInsert(_ item: Item, at row: Int, queued: QueuedEdit?) throws -> String {
        let encoded = try encode([item]).encoded[0]
        _ = try edit { store, feed in
            try Self.refuseSecondEdit(of: encoded.itemID, in: feed, store: store)
            let position = try store.insertItem(encoded, atRow: row, local: true, in: &feed)
            let newRow = try store.rowIndex(ofPosition: position, in: feed)
            let around = try store.neighbours(of: position, in: feed)
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: encoded.itemID, kind: .insert, base: nil, baseSection: encoded.section,
                    edited: encoded.payload, above: around.above, below: around.below, createdAt: Date(),
                    queued: queued),
                in: feed)
            return RowChange(inserted: [newRow])
        }
        optimistic.mayHavePending = true
        return encoded.itemID
    }

    /// Removes the item and stores the pending removal with the rows around it, in one write.
    /// - Returns: The removed item, or nil when the feed lacks it.
    func beginRemoval(_ storedID: String, queued: QueuedEdit?) throws -> Item? {
        var removedItem: Item?
        let found = try editDecodable { store, feed in
            try Self.refuseSecondEdit(of: storedID, in: feed, store: store)
            guard let stored = try store.items(withIDs: [storedID], in: feed)[storedID] else { return nil }
            let around = try store.neighbours(of: stored.position, in: feed)
            guard let removed = try store.removeItem(storedID, from: &feed) else { return nil }
            removedItem = try decode(removed.item)
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: storedID, kind: .remove, base: removed.item.payload, baseSection: removed.item.section,
                    edited: nil, above: around.above, below: around.below, createdAt: Date(), queued: queued),
                in: feed)
            return RowChange(deleted: [removed.row])
        }
        guard found, let removedItem else { return nil }
        optimistic.mayHavePending = true
        return removedItem
    }

    /// Refuses an edit of an item that has one pending: two pending edits of one row could not be
    /// rolled back one without the other.
    private static func refuseSecondEdit(of storedID: String, in feed: FeedRecord, store: PageStore) throws {
        if try store.pendingEdits(of: feed).contains(where: { $0.itemID == storedID }) {
            throw FeedError(
                .storage,
                message: "The item \(storedID.debugDescription) has an edit waiting for its server call; "
                    + "wait for it before editing the item again", storageKind: .constraint)
        }
    }
}
