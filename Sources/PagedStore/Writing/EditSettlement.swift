import Foundation

/// The one entry point for settling a pending edit's outcome (confirmed, or rejected and rolled
/// back), in the caller's write transaction: an open feed calls it when its server call answers or
/// the outbox hands it an outcome, and the outbox calls it for a feed no `Feed` of its store has
/// open. Either way the same edit settles alike, and the same writes are recorded.
///
/// Only the item's first edit is ever sent: it settles on its row (``PendingEditSettlement``). A
/// queued edit that shows on no row, because its row left under it (``PendingEditFate``), settles
/// alone (``DetachedEditSettlement``).
enum EditSettlement {
    /// What a settlement did.
    enum Settled {
        /// The item's first edit settled on its row: what it wrote (the change to the feed's rows and
        /// the copies for the feeds sharing the item), and the item's edits that went with it.
        case onItsRow(PendingEditSettlement.Outcome, gone: [PendingEditKey])
        /// The edit showed on no row, and went: what it wrote of the other feeds sharing the item,
        /// and the item's later edits a rejected insert took with it.
        case detached(otherFeeds: [RecordedWrite], dropped: [MalformedPendingEdit])
        /// Nothing settled: the edit with the key is not the item's first (one made since the one
        /// sent), or no edit of the item is pending and no key names one.
        case nothing
    }

    /// Settles the item's first edit when `key` is nil or names it, else the queued edit with `key`
    /// when it shows on no row. The later edits a rejected insert takes with it are kept in the
    /// outbox's history, dropped at `now`.
    /// - Parameters:
    ///   - stack: The item's pending edits the caller can apply, oldest first: the unusable ones
    ///     (``UnusablePendingEdits``) and, for a feed, the ones its codec cannot read were dropped or
    ///     detached first.
    ///   - carry: How a later edit's change goes on a value, when the feed that made it knows.
    static func settle(
        _ itemID: String, key: UUID?, confirmed: Bool, stack: [PendingEditRecord], in store: PageStore,
        feed: inout FeedRecord, at now: Date, carry: PendingEditStack.Carry = { _, _ in nil }
    ) throws -> Settled {
        if let first = stack.first, key == nil || first.queued?.idempotencyKey == key {
            let outcome = try PendingEditSettlement.settle(
                first, confirmed: confirmed, in: store, feed: &feed, carry: carry)
            try LeavingRowEdits.keepInHistory(outcome.dropped, of: feed, in: store, at: now)
            let left = Set(try store.pendingEdits(ofItem: itemID, in: feed).map(PendingEditKey.init))
            return .onItsRow(outcome, gone: stack.map(PendingEditKey.init).filter { !left.contains($0) })
        }
        guard let key,
            let settled = try DetachedEditSettlement.settle(
                itemID, key: key, confirmed: confirmed, in: feed, store: store)
        else { return .nothing }
        try LeavingRowEdits.keepInHistory(settled.dropped, of: feed, in: store, at: now)
        return .detached(otherFeeds: settled.otherFeeds, dropped: settled.dropped)
    }
}
