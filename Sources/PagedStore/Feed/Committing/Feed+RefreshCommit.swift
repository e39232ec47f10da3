import Foundation

/// Committing a refresh: its first page merged in one transaction, with the feed's generation, age,
/// state and row limit.
extension Feed {
    /// Writes a refreshed first page in one transaction, or returns nil if the refresh lost its
    /// place meanwhile (see ``refreshTransaction(task:generation:continuing:_:)``).
    func commitRefresh(
        _ page: Page<Item>, task: FeedActivity.TaskID, generation: Int64, continuing: Bool = false
    ) throws -> Commit? {
        let (encoded, items) = try encode(page.items)
        let write = PageWrite(
            request: .first, requestCursor: nil, olderCursor: page.olderCursor, newerCursor: page.newerCursor,
            fetchedAt: clock.date())
        let policy = self.policy
        return try refreshTransaction(task: task, generation: generation, continuing: continuing) { store, feed in
            var commit = try Self.merge(encoded, items: items, page: write, into: &feed, policy: policy, store: store)
            commit.refreshedPage = encoded
            return commit
        }
    }

    /// Runs one write of a refresh: `body` changes the rows; the feed's generation, age and state,
    /// and the policy's row limit, are applied in the same transaction.
    ///
    /// Returns nil when nothing was written: the refresh no longer owns its activity, or another
    /// `Feed` committed a newer refresh (the generation is compared inside the transaction), in which
    /// case this feed takes the file's rows and generation through ``followFile(mayWrite:wholeWindow:)``. `continuing` is
    /// for a refresh's later writes, after it committed its generation itself.
    func refreshTransaction(
        task: FeedActivity.TaskID, generation: Int64, continuing: Bool = false,
        _ body: (PageStore, inout FeedRecord) throws -> Commit
    ) throws -> Commit? {
        let policy = self.policy
        let now = clock.date()
        return try write { store, feed in
            guard activity.owns(task, .refresh) else { return nil }
            // Strictly older: two feeds that read one generation and both bumped it (a relaunch while
            // the old process still waited for a response) must not both commit. The first wins.
            guard feed.generation < generation || (continuing && feed.generation == generation) else { return nil }
            var commit = try body(store, &feed)
            Self.markRefreshed(&feed, generation: generation, at: now)
            if let maxRows = policy.maxRows { try Self.trim(&feed, to: maxRows, in: store, reporting: &commit) }
            try store.save(&feed)
            commit.record = feed
            return commit
        }
    }

    /// Marks `feed` refreshed at `date`, under `generation`: loaded, with no error.
    private static func markRefreshed(_ feed: inout FeedRecord, generation: Int64, at date: Date) {
        feed.generation = generation
        // Whole milliseconds, as the file keeps them: the record in memory equals the file's.
        feed.lastRefreshAt = Date(millisecondsSince1970: date.millisecondsSince1970)
        feed.loaded = true
        feed.lastError = nil
    }

    /// Trims `feed` to `maxRows` rows in the refresh's transaction; the refresh's `commit` then
    /// describes both (``RowChange/followed(byTrimming:of:)``) and reads its window again.
    private static func trim(
        _ feed: inout FeedRecord, to maxRows: Int, in store: PageStore, reporting commit: inout Commit
    ) throws {
        guard feed.rowCount > maxRows else { return }
        let merged = feed.rowCount
        let removed = try Trimmer.trim(&feed, maxRows: maxRows, in: store)
        guard removed > 0 else { return }
        commit.change = commit.change.followed(byTrimming: removed, of: merged)
        commit.window = .reload
    }
}
