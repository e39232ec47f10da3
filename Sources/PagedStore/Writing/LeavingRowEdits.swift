import Foundation

/// Carries out ``PendingEditFate`` in the write transaction that removes rows: the pending edits of
/// the rows leaving are detached (kept queued) or dropped, and every dropped queued edit is kept in
/// the outbox's history.
enum LeavingRowEdits {
    /// Applies the rule to the pending edits shown on the row of `itemID` in `feed` (on every row
    /// when nil), in the caller's write transaction, at `date`. A row no edit can come from goes too.
    /// - Returns: The dropped edits, for ``Feed/reportDropped(_:)`` once the transaction committed.
    static func rowsLeave(
        _ loss: PendingEditFate.Loss, item itemID: String? = nil, in feed: FeedRecord, store: PageStore, at date: Date
    ) throws -> [MalformedPendingEdit] {
        var restored: [EncodedItem] = []
        return try rowsLeave(loss, item: itemID, in: feed, store: store, at: date, restoring: &restored)
    }

    /// ``rowsLeave(_:item:in:store:at:)``, adding to `restored` the server's copy under each shared
    /// item whose edits all went (see ``serverCopies(under:)``): the caller spreads it to the other
    /// feeds holding the item, which showed the dropped update, as a rejection's rollback does.
    static func rowsLeave(
        _ loss: PendingEditFate.Loss, item itemID: String? = nil, in feed: FeedRecord, store: PageStore, at date: Date,
        restoring restored: inout [EncodedItem]
    ) throws -> [MalformedPendingEdit] {
        let rows = try store.pendingEditRows(of: feed, item: itemID)
        var dropped: [MalformedPendingEdit] = []
        var droppedEdits: [PendingEditRecord] = []
        var keptItems = Set<String>()
        for edit in rows.edits where itemID == nil || edit.itemID == itemID {
            switch PendingEditFate.of(edit, when: loss) {
            case .detach:
                try store.detach(edit, in: feed)
                keptItems.insert(edit.itemID)
            case .drop(let reason):
                try store.deletePendingEdit(edit, in: feed)
                dropped.append(MalformedPendingEdit(edit, problem: reason))
                droppedEdits.append(edit)
            }
        }
        if feed.sharedType != nil {
            restored += serverCopies(under: droppedEdits.filter { !keptItems.contains($0.itemID) })
        }
        for malformed in rows.malformed where itemID == nil || malformed.itemID == itemID {
            try store.deletePendingEdit(itemID: malformed.itemID, step: malformed.step, in: feed)
            dropped.append(malformed)
        }
        try keepInHistory(dropped, of: feed, in: store, at: date)
        return dropped
    }

    /// The server's copy each item's `edits` stood on, for the items whose first edit (by step) is
    /// an update that kept it: what the other feeds sharing the item show once the edits are gone.
    static func serverCopies(under edits: [PendingEditRecord]) -> [EncodedItem] {
        PendingEditStack.stacks(edits).compactMap { stack in
            guard let first = stack.first, first.kind == .update, let base = first.base else { return nil }
            return EncodedItem(itemID: first.itemID, section: first.baseSection, payload: base)
        }
    }

    /// Deletes what `plan` drops (see ``UnusablePendingEdits``) from `feed`, in the caller's write
    /// transaction, and keeps each dropped queued edit in the outbox's history, dropped at `now`.
    /// - Returns: The dropped edits, for ``Feed/reportDropped(_:)`` once the transaction committed.
    static func drop(
        _ plan: UnusablePendingEdits.Plan, of feed: FeedRecord, in store: PageStore, at now: Date
    ) throws -> [MalformedPendingEdit] {
        for (itemID, step) in plan.cuts { try store.deletePendingEdits(itemID: itemID, fromStep: step, in: feed) }
        for edit in plan.rowsLeavingAlone {
            try store.deletePendingEdit(itemID: edit.itemID, step: edit.step, in: feed)
        }
        try keepInHistory(plan.dropped, of: feed, in: store, at: now)
        return plan.dropped
    }

    /// Keeps each dropped edit that was queued (made by kind) in the outbox's history of drops,
    /// dropped at `now`.
    static func keepInHistory(
        _ dropped: [MalformedPendingEdit], of feed: FeedRecord, in store: PageStore, at now: Date
    ) throws {
        for edit in dropped where edit.outboxKind != nil {
            try store.recordDroppedQueuedEdit(
                DroppedQueuedEdit(
                    feedKey: feed.key, itemID: edit.itemID, kind: edit.outboxKind, argument: edit.argument,
                    idempotencyKey: edit.idempotencyKey, reason: edit.problem, droppedAt: now))
        }
    }
}
