import Foundation

/// The outbox's writes of a feed by its key, with no `Feed` open: settling a queued edit and
/// counting a failed send.
///
/// They go through the store's one write transaction (``StoreWriter``) and the same settlement a
/// feed uses (``EditSettlement``), so a rollback is recorded in the file's change record:
/// every open list of the feed, in this store, another store or another process, follows it as an
/// exact change, and a feed opened later reads the rolled-back rows.
struct OutboxWriter: Sendable {
    /// The store's one write path.
    let store: StoreWriter
    var queue: DatabaseQueue { store.queue }
    /// Who writes, among the open feeds of the process: nobody's list, so every list of the feed
    /// is told.
    let follower: Int

    init(store: StoreWriter) {
        self.store = store
        follower = LiveFeeds.shared.newFollower()
    }

    /// Deletes the queued edit with `key` of the item in the feed `feedKey` (confirmed) or rolls it
    /// back (not); nothing when the feed or that edit is gone (settled elsewhere, the feed deleted).
    ///
    /// No codec checks the server's payload it writes back: it is the row's own bytes, and a row the
    /// app cannot decode (a file edited by hand) is removed by the feed when it reads it. The rows
    /// no edit can come from, and the edits standing on them (see ``UnusablePendingEdits``), go into
    /// the outbox's history without a rollback, as a feed drops them.
    func settle(_ itemID: String, key: UUID, confirmed: Bool, inFeed feedKey: String) throws {
        try store.transaction(by: follower) { store in
            guard var feed = try store.feed(key: feedKey) else { return ((), []) }
            let before = feed
            // Rows no edit can come from go first, reported in the history, as a feed reading them drops them.
            let now = self.store.clock.date()
            let rows = try store.pendingEditRows(of: feed, item: itemID)
            let usable = UnusablePendingEdits.plan(edits: rows.edits, malformed: rows.malformed)
            _ = try LeavingRowEdits.drop(usable, of: feed, in: store, at: now)
            let stack = PendingEditStack.stacks(usable.usable).first ?? []
            // The feed's later edits go again with their own change where a list of it in this
            // process knows it (in another store), else by what they changed.
            let carry = LiveFeeds.shared.carries(in: queue.file)(feedKey) ?? { _, _ in nil }
            let settled = try EditSettlement.settle(
                itemID, key: key, confirmed: confirmed, stack: stack, in: store, feed: &feed, at: now, carry: carry)
            guard case .onItsRow(let outcome, _) = settled else {
                if case .detached(let written, _) = settled { return ((), written) }
                return ((), [])
            }
            // As the feed's own settlement does: a rollback's server copy is spread to every feed
            // sharing the item (the feed's row names the name its items are shared under).
            let written = try SharedItemSpread.spread(
                outcome.copies, from: feed, in: store, carries: LiveFeeds.shared.carries(in: queue.file)
            ).written
            guard outcome.change != nil || feed != before else { return ((), written) }
            let change = outcome.change ?? .fullReload
            return ((), [RecordedWrite(before: before, after: feed, change: change)] + written)
        }
    }

    /// Takes the send lease of the item's queued edit with `key` for `holder`, unless another store
    /// holds it (``SendLease``) or counted a failed send of it since the caller looked (`attempts`:
    /// the failures the caller knows of; the edit then waits for the time that store wrote), in one
    /// write transaction. A lease that ends too late (see ``SendLease/endsTooLate(at:)``) is written
    /// back as ending ``SendLease/longest`` from now.
    /// - Returns: Nil when `holder` has it now; else how long to wait at the latest before trying
    ///   again: the other store's lease or retry time, or a second when the edit is gone (the next
    ///   look at the file forgets it).
    func takeSendLease(
        of itemID: String, key: UUID, inFeed feedKey: String, for holder: String, knowing attempts: Int
    ) throws -> Duration? {
        try store.transaction(by: follower, growing: false) { store in
            guard let feed = try store.feed(key: feedKey),
                let found = try store.sendLease(of: itemID, key: key, in: feed)
            else { return (.seconds(1), []) }
            let now = self.store.clock.date()
            if found.attempts > attempts, let next = found.nextAttemptAt, next > now {
                return (.seconds(next.timeIntervalSince(now)), [])
            }
            if let other = found.holder, let until = found.until {
                let lease = SendLease(holder: other, until: until)
                let lives = LeaseHolders.shared.lives(other, sending: key)
                if let end = lease.heldUntil(against: holder, now: now, holderLives: lives) {
                    if lease.endsTooLate(at: now) {
                        try store.setSendLease(of: itemID, key: key, holder: other, until: end, in: feed)
                    }
                    return (.seconds(end.timeIntervalSince(now)), [])
                }
            }
            let lease = SendLease.taken(by: holder, now: now)
            try store.setSendLease(of: itemID, key: key, holder: lease.holder, until: lease.until, in: feed)
            return (nil, [])
        }
    }

    /// Counts a failed send of the item's queued edit with `key` by `holder`, keeps what it said
    /// and when it may go again; nothing when the feed or that edit is gone, or when `holder` no
    /// longer holds its lease (another store took the edit over after this send outlived its lease:
    /// its outcome is the one that counts).
    /// The rows do not change, so no change is recorded.
    func recordFailedSend(
        of itemID: String, key: UUID, by holder: String, error: String, nextAttemptAt: Date, inFeed feedKey: String
    ) throws {
        try store.transaction(by: follower, growing: false) { store in
            guard let feed = try store.feed(key: feedKey) else { return ((), []) }
            _ = try store.recordFailedSend(
                of: itemID, key: key, by: holder, error: error, nextAttemptAt: nextAttemptAt, in: feed)
            return ((), [])
        }
    }
}
