import Foundation

/// Opening, refreshing and retrying.
extension Feed {
    /// How a commit changes the rows held in memory.
    enum WindowUpdate {
        /// Rows appended at the bottom of a feed that had `oldCount` rows.
        case append(LoadedRows<Item>, oldCount: Int)
        /// Rows inserted on top, and rows of the old head whose item changed (old row numbers).
        case prepend(LoadedRows<Item>, reloads: [(row: Int, item: Item, key: RowKey)])
        /// Anything else: read the window again from the cache.
        case reload
    }

    /// What one committed write did.
    struct Commit {
        var record: FeedRecord
        var change: RowChange
        var window: WindowUpdate
    }

    /// Trims the feed to its policy's limits and refreshes it if the policy says so.
    ///
    /// Call it once when the list appears. The snapshot already holds the cached rows before this is
    /// called: offline, the list shows them and the refresh fails into ``RefreshActivity/failed(_:)``.
    public func start() async {
        trimToLimits()
        switch policy.refreshOnOpen {
        case .always:
            await refresh()
        case .whenOlderThan(let seconds):
            if let last = record.lastRefreshAt, Date().timeIntervalSince(last) < seconds { return }
            await refresh()
        case .never:
            return
        }
    }

    /// Fetches the newest page and merges it on top of the cached rows (pull-to-refresh).
    ///
    /// A refresh supersedes every fetch still in flight: a refresh or next page that started earlier
    /// is dropped when its response arrives, unwritten and unemitted. New items above the cached head
    /// are inserted at rows `0..<k`; changed items of the overlap are reloads; items the server no
    /// longer lists within the overlap are deletions. Without overlap the policy's
    /// ``FeedPolicy/GapPolicy`` decides. Returns when this refresh is committed, failed or superseded.
    public func refresh() async {
        generation = generation < .max ? generation + 1 : generation  // a stored value: never trap
        let myGeneration = generation
        supersedeNextPage()
        refreshActivity = .loading
        emit()
        report(.requestStarted, .first, generation: myGeneration)
        let started = ContinuousClock.now
        do {
            let page = try await source.fetch(.first)
            guard myGeneration == generation else {
                return report(.superseded, .first, generation: myGeneration, since: started)
            }
            guard let commit = try commitRefresh(page, generation: myGeneration) else {
                return report(.superseded, .first, generation: myGeneration, since: started)
            }
            refreshActivity = .idle
            contentError = nil
            if lastFailure == .refresh { lastFailure = nil }
            if case .failed = nextPageActivity {
            } else {
                nextPageActivity = commit.record.endReached ? .endReached : .idle
            }
            try apply(commit)
            report(.committed, .first, generation: myGeneration, rows: commit.change.touchedRows, since: started)
        } catch {
            guard myGeneration == generation else {
                return report(.superseded, .first, generation: myGeneration, since: started)
            }
            let failure = FeedError(error)
            refreshActivity = .failed(failure)
            if record.rowCount == 0, !record.loaded { contentError = failure }
            lastFailure = .refresh
            lastRetryAfter = failure.retryAfter
            recordError(failure)
            emit()
            report(.failed, .first, generation: myGeneration, since: started, error: failure)
        }
    }

    /// Repeats the operation that failed last: a refresh, a next page, or filling a gap.
    ///
    /// When the server asked to wait (HTTP `Retry-After`, see ``FeedError/retryAfter``), the retry
    /// waits out what remains of that time first.
    public func retry() async {
        if let retryAfter = lastRetryAfter, let failedAt = lastFailureAt {
            let remaining = Duration.seconds(retryAfter) - (ContinuousClock.now - failedAt)
            if remaining > .zero { try? await Task.sleep(for: remaining) }
        }
        switch lastFailure {
        case .refresh: await refresh()
        case .nextPage:
            if case .failed = nextPageActivity { nextPageActivity = .idle }
            await loadNextPage()
        case .gap(let gap): await loadGap(gap)
        case nil: if contentError != nil { await refresh() }
        }
    }

    // MARK: - Committing

    /// Writes a refreshed first page in one transaction, or returns nil if a newer refresh (from
    /// this process or another) already committed: the generation is compared inside the transaction.
    private func commitRefresh(_ page: Page<Item>, generation: Int64) throws -> Commit? {
        let (encoded, items) = try encode(page.items)
        let write = PageWrite(
            request: .first, requestCursor: nil, olderCursor: page.olderCursor, newerCursor: page.newerCursor)
        let policy = self.policy
        return try queue.write { store -> Commit? in
            var feed = try store.ensureFeed(key: key)
            guard feed.generation <= generation, generation == self.generation else { return nil }
            var commit = try Self.merge(encoded, items: items, page: write, into: &feed, policy: policy, store: store)
            feed.generation = generation
            feed.lastRefreshAt = write.fetchedAt
            feed.loaded = true
            feed.lastError = nil
            if let maxRows = policy.maxRows, feed.rowCount > maxRows {
                let before = feed.rowCount
                let removed = try store.trim(&feed, maxRows: maxRows)
                if removed > 0 {
                    // Trimmed rows are the bottom of the merged list; a batch can name them only when
                    // they are old rows untouched by the merge, all below the deepest reloaded row.
                    let oldCount = before - commit.change.rowDelta
                    let untouched = commit.change.deleted.isEmpty && commit.change.moved.isEmpty
                    let firstTrimmed = oldCount - removed
                    commit.change =
                        untouched && firstTrimmed > (commit.change.reloaded.max() ?? -1) && firstTrimmed >= 0
                        ? RowChange(
                            deleted: Array((oldCount - removed)..<oldCount), inserted: commit.change.inserted,
                            reloaded: commit.change.reloaded)
                        : .fullReload
                    commit.window = .reload
                }
            }
            try store.save(feed)
            commit.record = feed
            return commit
        }
    }

    /// The merge itself: the plan from ``RefreshMerge`` carried out in the store.
    private static func merge(
        _ encoded: [EncodedItem], items: [Item], page: PageWrite, into feed: inout FeedRecord, policy: FeedPolicy,
        store: PageStore
    ) throws -> Commit {
        if feed.rowCount == 0 || encoded.isEmpty {
            let wasEmpty = feed.rowCount == 0
            try store.replaceFeed(with: encoded, page: page, in: &feed)
            let change = wasEmpty ? RowChange(inserted: Array(0..<feed.rowCount)) : .fullReload
            return Commit(record: feed, change: change, window: .reload)
        }
        // The head first: its pages are the hot top of the feed, and it usually holds every shared id.
        // Only ids it lacks are looked up by id (random pages of the id index), to find rows deeper down.
        var head = try store.window(of: feed, from: .top, limit: encoded.count)
        var matches: [String: StoredItem] = [:]
        for row in head { matches[row.itemID] = row }
        let pageIDs = Set(encoded.map(\.itemID))
        matches = matches.filter { pageIDs.contains($0.key) }
        let unmatched = encoded.lazy.map(\.itemID).filter { matches[$0] == nil }
        let deeper = try store.items(withIDs: unmatched, in: feed)
        matches.merge(deeper) { first, _ in first }
        if let deepest = deeper.values.map(\.position).max() {
            head = try store.head(of: feed, through: deepest, limit: RefreshMerge.headLimit(pageSize: encoded.count))
        }
        let snapshotFeed = feed
        let plan = try RefreshMerge.plan(page: encoded, head: head, matches: matches) {
            try store.rowIndex(ofPosition: $0, in: snapshotFeed)
        }
        switch plan {
        case .noOverlap where policy.gapPolicy == .keepGap && page.olderCursor != nil:
            // Ids shared only far below would appear twice: they move to the top with the new page.
            // Their rows are taken before any is removed: a batch names rows of the previous snapshot.
            let deleted = try matches.values.map { try store.rowIndex(ofPosition: $0.position, in: feed) }.sorted()
            for match in matches.values { _ = try store.removeItem(match.itemID, from: &feed) }
            let oldTop = feed.topPosition
            try store.prependPage(encoded, page: page, to: &feed)
            if let oldTop, let newTop = feed.topPosition {
                let lastNew = newTop + Int64(encoded.count - 1) * PageStore.positionStep
                try store.addGap(above: lastNew, below: oldTop, cursor: page.olderCursor, in: feed)
            }
            let rows = newRows(items, encoded, top: feed.topPosition)
            return Commit(
                record: feed, change: RowChange(deleted: deleted, inserted: Array(0..<encoded.count)),
                window: deleted.isEmpty ? .prepend(rows, reloads: []) : .reload)
        case .noOverlap:
            try store.replaceFeed(with: encoded, page: page, in: &feed)
            return Commit(record: feed, change: .fullReload, window: .reload)
        case .prepend(let newItems, let reloads):
            try store.prependPage(newItems, page: page, to: &feed)
            for reload in reloads { try store.updateItem(reload.item, at: head[reload.row].position, in: &feed) }
            let rows = newRows(Array(items[..<newItems.count]), newItems, top: feed.topPosition)
            let reloadedRows = reloads.map { reload in
                (
                    row: reload.row, item: items[newItems.count + reload.row],
                    key: RowKey(
                        id: reload.item.itemID, position: head[reload.row].position, section: reload.item.section)
                )
            }
            return Commit(
                record: feed,
                change: RowChange(inserted: Array(0..<newItems.count), reloaded: reloads.map(\.row)),
                window: .prepend(rows, reloads: reloadedRows))
        case .rewrite(let through, let relocated, let change):
            for item in relocated { _ = try store.removeItem(item.itemID, from: &feed) }
            try store.replaceHead(through: through, with: encoded, page: page, in: &feed)
            return Commit(record: feed, change: change, window: .reload)
        }
    }

    /// Loaded rows for items just written on top, whose positions run from `top` in steps.
    private static func newRows(_ items: [Item], _ encoded: [EncodedItem], top: Int64?) -> LoadedRows<Item> {
        let top = top ?? 0
        var keys: [RowKey] = []
        keys.reserveCapacity(encoded.count)
        for (offset, item) in encoded.enumerated() {
            keys.append(
                RowKey(id: item.itemID, position: top + Int64(offset) * PageStore.positionStep, section: item.section))
        }
        return LoadedRows(items: items, keys: keys)
    }

    /// Takes a commit's record, updates the rows in memory, the sections and gaps, and emits.
    func apply(_ commit: Commit) throws {
        let previousLayout = layout
        let hadGaps = !gaps.isEmpty
        record = commit.record
        switch commit.window {
        case .append(let rows, let oldCount): window.append(rows, oldCount: oldCount)
        case .prepend(let rows, let reloads):
            for reload in reloads { window.reload(row: reload.row, item: reload.item, key: reload.key) }
            window.prepend(rows)
        case .reload: try reloadWindow()
        }
        if window.end > record.rowCount { try reloadWindow() }
        // Gaps move only when there are some, and appear only from a keepGap refresh (rows on top);
        // sections exist only for feeds with section keys. Anything else needs no read at all, which
        // keeps every plain next page and refresh free of an extra transaction.
        let gapsMayChange = hadGaps || (policy.gapPolicy == .keepGap && commit.change.inserted.first == 0)
        if record.hasSections || gapsMayChange {
            try queue.read { store in
                layout = try Self.layout(of: record, in: store)
                if gapsMayChange { gaps = try Self.gaps(of: record, in: store) }
            }
        } else {
            layout = SectionLayout(unsectionedRowCount: record.rowCount)
        }
        emit(commit.change, previousLayout: previousLayout)
    }

    /// Reads the window's rows again from the cache, keeping its start where possible.
    func reloadWindow(around start: Int? = nil) throws {
        let first = max(min(start ?? window.start, record.rowCount - window.capacity), 0)
        let stored = try queue.read { store in
            try store.window(of: record, from: first == 0 ? .top : .row(first), limit: window.capacity)
        }
        window.start = first
        window.rows = try LoadedRows(decoding: stored, codec: codec)
    }

    /// Records a failed fetch in the cache for `pagedb`, best effort: a storage failure here must not
    /// hide the fetch's own error.
    func recordError(_ error: FeedError) {
        // A busy file would only make this write wait out the same lock a second time.
        guard error.storageKind != .busy else { return }
        _ = try? queue.write { store in
            guard var feed = try store.feed(key: key) else { return }
            feed.lastError = error.message
            try store.save(feed)
            record.lastError = error.message
        }
    }

    /// Trims the feed to the policy's maximum age and rows; run when the feed starts.
    func trimToLimits() {
        guard policy.maxAge != nil || policy.maxRows != nil else { return }
        do {
            let before = record.rowCount
            let trimmed = try queue.write { store -> FeedRecord in
                var feed = try store.ensureFeed(key: key)
                if let maxAge = policy.maxAge { try store.trim(&feed, fetchedBefore: Date() - maxAge) }
                if let maxRows = policy.maxRows { try store.trim(&feed, maxRows: maxRows) }
                return feed
            }
            guard trimmed.rowCount != before else { return }
            let change = RowChange(deleted: Array(trimmed.rowCount..<before))
            try apply(Commit(record: trimmed, change: change, window: .reload))
            report(.trimmed, nil, generation: generation, rows: before - trimmed.rowCount)
        } catch {
            recordError(FeedError(error))
        }
    }
}
