import Foundation

/// Deletes a feed with its pages, rows, gaps and pending edits (`pagedb delete`), through the
/// store's one write path: the queued edits it drops are kept in the outbox's history, and the
/// other feeds sharing an item whose update it drops show the server's copy again, as a rejection
/// would leave them, with their changes recorded for their open lists.
package enum FeedDeletion {
    /// What the feed holds: its row, and its pending edits of each kind.
    package struct Holding: Sendable {
        /// The feed's row before the deletion.
        package var record: FeedRecord
        /// Its queued edits not yet sent (made by kind), detached ones too, and its queued rows the
        /// outbox cannot read (a file edited by hand): the user's intent all the same.
        package var queued: Int
        /// Its edits an app is saving now (made with a closure).
        package var saving: Int
    }

    /// Deletes the feed `key` of `queue`'s file in one write transaction, unless `allow` throws on
    /// what it holds (then nothing is written).
    /// - Parameter reason: Why its queued edits were dropped, as the outbox's history keeps it.
    /// - Returns: What the feed held, or nil when the file has no such feed.
    package static func delete(
        _ key: String, in queue: DatabaseQueue, reason: String, allow: (Holding) throws -> Void
    ) throws -> Holding? {
        let writer = StoreWriter(queue: queue, budget: nil, clock: .system)
        return try writer.transaction(by: LiveFeeds.shared.newFollower(), growing: false) { store in
            guard let record = try store.feed(key: key) else { return (nil, []) }
            // Detached edits too: the other feeds sharing an item show a detached update until they
            // refresh, and a rejection of it would restore them as well.
            let edits = try store.pendingEditRows(of: record, detachedColumn: false).edits
            let queued = edits.filter { $0.queued != nil }
            // Rows no edit can be read from go too, kept in the history as a feed keeps them.
            let unreadable = try store.unreadableQueuedEdits().filter { $0.feedKey == key }.map { _, edit in
                var dropped = edit
                dropped.problem = "\(reason): it is \(edit.problem)"
                return dropped
            }
            let unreadableQueued = unreadable.filter { $0.outboxKind != nil }.count
            let holding = Holding(
                record: record, queued: queued.count + unreadableQueued, saving: edits.count - queued.count)
            try allow(holding)
            try LeavingRowEdits.keepInHistory(
                queued.map { MalformedPendingEdit($0, problem: reason) } + unreadable, of: record, in: store,
                at: writer.clock.date())
            // The updates it drops were spread to the other feeds sharing their items: those show the
            // server's copy again, as a rejection would leave them.
            let shown = Set(try store.pendingEditRows(of: record).edits.map(PendingEditKey.init))
            let attached = edits.filter { shown.contains(PendingEditKey($0)) }
            let detached = edits.filter { !shown.contains(PendingEditKey($0)) }
            let restored = record.sharedType == nil ? [] : LeavingRowEdits.serverCopies(under: attached)
            let undone = try SharedItemSpread.undo(detached: detached, from: record, in: store)
            try store.deleteFeed(record)
            let others = try SharedItemSpread.spread(restored, from: record, in: store).written
            return (holding, undone + others)
        }
    }
}
