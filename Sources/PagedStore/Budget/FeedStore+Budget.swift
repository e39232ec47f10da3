/// Keeping the store within its ``StoreBudget``.
extension FeedStore {
    /// What the store evicts and shrinks from now on, to keep within its ``budget``: one value per
    /// feed evicted or trimmed, and one when the file shrank. Empty (and never finishing) for a
    /// store without a budget.
    ///
    /// Each access makes a new stream.
    public var evictions: AsyncStream<StoreEviction> {
        writer.budget?.evictions() ?? AsyncStream { _ in }
    }

    /// Evicts what the budget requires now, and gives every free page back to the file system, even
    /// when the file is within its budget (after the app deleted feeds, say, or on a low-storage
    /// warning). The store also does this by itself after any write that leaves the file over its
    /// budget.
    ///
    /// A file created by an older PagedStore is rewritten whole once (`VACUUM`), which makes its
    /// later shrinks short writes.
    /// - Returns: What was evicted and shrunk, as also reported by ``evictions``; empty for a store
    ///   without a budget, a read-only store or an in-memory one.
    /// - Throws: ``StorageError`` when the file cannot be written.
    @discardableResult
    public func keepWithinBudget() throws -> [StoreEviction] {
        guard let keeper = writer.budget else { return [] }
        return try keeper.keep(queue, writing: nil, force: true)
    }
}
