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
        var step = 0
        let found = try editDecodable { store, feed in
            // Asked first: an item whose removal waits is not in the feed, and says so.
            let next = try Self.nextEdit(
                of: storedID, .update, queued: queued, in: feed, store: store, now: clock.date())
            guard let stored = try store.items(withIDs: [storedID], in: feed)[storedID] else { return nil }
            let original = try decode(stored)
            var item = original
            change(&item)
            let encoded = try context.writer.encode(
                item, replacing: (stored.payload, stored.section), readAs: original)
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: storedID, kind: .update, base: stored.payload, baseSection: stored.section,
                    edited: encoded.payload, createdAt: next.createdAt, queued: queued, step: next.step,
                    editedSection: encoded.section),
                in: feed)
            _ = try store.updateItem(encoded, in: &feed)
            (edited, step) = (item, next.step)
            let row = try store.rowIndex(ofPosition: stored.position, in: feed)
            let ownCopy = SharedCopyRule.keepsItsOwnCopy(stackStartingWith: next.first ?? .update)
            return RowEdit(RowChange(reloaded: [row], reloadedIDs: [storedID]), copies: ownCopy ? [] : [encoded])
        }
        guard found, let edited else { return nil }
        optimistic.changes[PendingEditKey(itemID: storedID, step: step, idempotencyKey: queued?.idempotencyKey)] =
            change
        optimistic.mayHavePending = true
        return edited
    }

    /// Inserts the item as row `row` and stores the pending insert, in one write.
    /// - Returns: The item's stored id.
    func beginInsert(_ item: Item, at row: Int, queued: QueuedEdit?) throws -> String {
        let encoded = try encode([item]).encoded[0]
        _ = try edit { store, feed in
            // After the item's detached edits, when it has some: never over one (it is still sent).
            let next = try Self.nextEdit(
                of: encoded.itemID, .insert, queued: queued, in: feed, store: store, now: clock.date())
            let position = try store.insertItem(encoded, atRow: row, local: true, in: &feed)
            let newRow = try store.rowIndex(ofPosition: position, in: feed)
            let around = try store.neighbours(of: position, in: feed)
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: encoded.itemID, kind: .insert, base: nil, baseSection: encoded.section,
                    edited: encoded.payload, above: around.above, below: around.below, createdAt: next.createdAt,
                    queued: queued, step: next.step, editedSection: encoded.section),
                in: feed)
            return RowEdit(RowChange(inserted: [newRow]))
        }
        optimistic.mayHavePending = true
        return encoded.itemID
    }

    /// Removes the item and stores the pending removal with the rows around it, in one write.
    /// - Returns: The removed item, or nil when the feed lacks it.
    func beginRemoval(_ storedID: String, queued: QueuedEdit?) throws -> Item? {
        var removedItem: Item?
        let found = try editDecodable { store, feed in
            let next = try Self.nextEdit(
                of: storedID, .remove, queued: queued, in: feed, store: store, now: clock.date())
            guard let stored = try store.items(withIDs: [storedID], in: feed)[storedID] else { return nil }
            let around = try store.placeNeighbours(of: stored.position, in: feed)
            let local = try store.isLocalRow(storedID, in: feed)
            guard let removed = try store.removeItem(storedID, from: &feed) else { return nil }
            removedItem = try decode(removed.item)
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: storedID, kind: .remove, base: removed.item.payload, baseSection: removed.item.section,
                    edited: nil, above: around.above, below: around.below, createdAt: next.createdAt, queued: queued,
                    step: next.step, removedPosition: stored.position, removedLocal: local),
                in: feed)
            return RowEdit(RowChange(deleted: [removed.row]))
        }
        guard found, let removedItem else { return nil }
        optimistic.mayHavePending = true
        return removedItem
    }

    /// The step and time of a new edit of the item, after the edits it has pending, and the kind of
    /// the first of those (which says whether the edit shows in other feeds); throws when
    /// ``PendingEditStack/refusal(adding:queued:after:)`` refuses it.
    private static func nextEdit(
        of storedID: String, _ kind: PendingEditRecord.Kind, queued: QueuedEdit?, in feed: FeedRecord,
        store: PageStore, now: Date
    ) throws -> (step: Int, createdAt: Date, first: PendingEditRecord.Kind?) {
        let stack = try store.pendingEdits(ofItem: storedID, in: feed)
        if let refusal = PendingEditStack.refusal(adding: kind, queued: queued != nil, after: stack) {
            throw FeedError(
                .storage, message: "The item \(storedID.debugDescription) \(refusal)", storageKind: .constraint)
        }
        // After every edit of the item, detached ones too: they are still sent first.
        guard let last = try store.lastPendingEdit(ofItem: storedID, in: feed) else { return (0, now, nil) }
        let (step, overflow) = last.step.addingReportingOverflow(1)
        if overflow {
            throw FeedError(
                .storage, message: "The item \(storedID.debugDescription) has too many edits", storageKind: .corrupt)
        }
        // Never before the edit it follows, whatever the clock did: the outbox sends oldest first.
        return (step, max(now, last.createdAt), stack.first?.kind)
    }
}
