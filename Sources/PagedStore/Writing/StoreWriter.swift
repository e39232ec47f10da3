import Foundation

/// What one write did to a feed's row and rows, for the change record.
struct RecordedWrite {
    let before: FeedRecord
    let after: FeedRecord
    let change: RowChange
}

/// The one write path of the engine, for one feed (``FeedWriter``), the outbox (``OutboxWriter``),
/// shared items (``FeedStore/remove(id:of:)``) or several feeds (the budget's evictions): here only,
/// so that every write records its change, tells the open lists and the outboxes, and keeps the file
/// within the store's budget. No caller can forget one of them.
struct StoreWriter: Sendable {
    let queue: DatabaseQueue
    /// What keeps the file within the store's budget after each write; nil without a budget, and for
    /// the keeper's own evictions.
    let budget: BudgetKeeper?
    /// The time every driver of the store reads (see ``StoreClock``).
    let clock: StoreClock

    /// The one place the engine opens a write transaction. `body` returns its result and what the
    /// write did to each feed it wrote, which the change record keeps in the same transaction; the
    /// other open lists of those feeds are told once the transaction committed, and then the budget
    /// is kept (see ``BudgetKeeper``).
    /// - Parameters:
    ///   - follower: Who wrote, among the open feeds of the process: it is not told.
    ///   - keptWhole: The feed whose rows the budget leaves whole this time: the list that wrote them
    ///     has not taken them into its window yet.
    ///   - growing: Whether the write may grow the file; a write that only marks or deletes rows
    ///     (a reading position, a settled edit that rolls nothing back) skips the budget's look.
    func transaction<Result>(
        by follower: Int, keepingWhole keptWhole: String? = nil, growing: Bool = true,
        _ body: (PageStore) throws -> (Result, [RecordedWrite])
    ) throws -> Result {
        let result = try Self.commit(in: queue, by: follower, body)
        if growing { budget?.keepWithinBudget(queue, writing: keptWhole) }
        return result
    }

    private static func commit<Result>(
        in queue: DatabaseQueue, by follower: Int, _ body: (PageStore) throws -> (Result, [RecordedWrite])
    ) throws -> Result {
        let limit = queue.changeRecordLimit
        let (result, written) = try queue.write { store in
            store.pagesLosingRows = [:]
            let (result, written) = try body(store)
            // Pages the write left with no rows go with it (see ``EmptyPageRule``).
            try EmptyPages.remove(in: store)
            for write in written {
                let sequence = try store.recordChange(from: write.before, to: write.after, bytes: write.change.encoded)
                if let forget = ChangeRecordRetention.forgetThrough(after: sequence, limit: limit) {
                    try store.forgetChanges(through: forget)
                }
            }
            return (result, written)
        }
        if let file = queue.file {
            for write in written { LiveFeeds.shared.tell(writeOf: write.after.key, by: follower, in: file) }
            // Every write may have changed the queued edits or what a search finds, which no feed's
            // change records: the outboxes and live searches following the file look again (a write
            // that changed neither costs them a read).
            LiveFeeds.shared.tellEveryWriteFollowers(in: file, by: follower)
            FileChangeSignal.post(for: file)
        }
        return result
    }
}
