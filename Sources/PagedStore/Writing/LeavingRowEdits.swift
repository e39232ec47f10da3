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
        let rows = try store.pendingEditRows(of: feed, item: itemID)
        var dropped: [MalformedPendingEdit] = []
        for edit in rows.edits where itemID == nil || edit.itemID == itemID {
            switch PendingEditFate.of(edit, when: loss) {
            case .detach:
                try store.detach(edit, in: feed)
            case .drop(let reason):
                try store.deletePendingEdit(edit, in: feed)
                dropped.append(MalformedPendingEdit(edit, problem: reason))
            }
        }
        for malformed in rows.malformed where itemID == nil || malformed.itemID == itemID {
            try store.deletePendingEdit(itemID: malformed.itemID, step: malformed.step, in: feed)
            dropped.append(malformed)
        }
        try keepInHistory(dropped, of: feed, in: store, at: date)
        return dropped
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
