import Foundation

/// Trimming a feed to its limits.
extension Feed {
    /// Trims whole pages from the bottom until at most `maxRows` rows remain, now (for example on a
    /// memory warning); the older cursor moves with them, so the next page resumes right below the
    /// rows that remain.
    ///
    /// Pages are cut only where the older cursor continues the feed exactly (a page written by a
    /// refresh holds only its new items, and its cursor points below the overlap), and the top page
    /// always stays: a trim may keep more rows than asked, but it never makes the feed skip an item
    /// or show nothing after it loaded.
    /// - Returns: How many rows were removed.
    /// - Throws: ``FeedError`` when the cache cannot be written.
    @discardableResult
    public func trim(maxRows: Int) throws -> Int {
        do {
            return try trim { store, feed in try Trimmer.trim(&feed, maxRows: max(maxRows, 0), in: store) }
        } catch {
            throw FeedError(error)
        }
    }

    /// Trims the feed to the policy's maximum age and rows; run when the feed starts.
    func trimToLimits() {
        guard policy.maxAge != nil || policy.maxRows != nil else { return }
        do {
            try trim { store, feed in
                var removed = 0
                if let maxAge = policy.maxAge {
                    removed += try Trimmer.trim(&feed, fetchedBefore: clock.date() - maxAge, in: store)
                }
                if let maxRows = policy.maxRows { removed += try Trimmer.trim(&feed, maxRows: maxRows, in: store) }
                return removed
            }
        } catch {
            recordError(FeedError(error))
        }
    }

    /// Runs a trim in one transaction and emits the bottom rows it removed.
    @discardableResult
    private func trim(_ body: (PageStore, inout FeedRecord) throws -> Int) throws -> Int {
        try syncWithFile()
        var before = 0
        let trimmed = try write { store, feed in
            before = feed.rowCount
            guard try body(store, &feed) > 0 else { return nil }
            return Commit(record: feed, change: RowChange(deleted: Array(feed.rowCount..<before)), window: .reload)
        }
        guard let trimmed else { return 0 }
        let removed = before - trimmed.record.rowCount
        try apply(trimmed)
        report(.trimmed, nil, generation: activity.generation, rows: removed)
        return removed
    }
}
