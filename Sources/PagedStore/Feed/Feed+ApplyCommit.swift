import Foundation

/// Committing fetched pages: the refresh merge in one transaction, and applying any commit to the
/// rows in memory, the sections and the gaps.
extension Feed {
    /// What one committed write did.
    typealias Commit = FeedCommit<Item>

    /// Runs `plan` through the feed's ``FeedWriter`` (one transaction, pending edits re-applied) and
    /// takes what the write says of the pending edits. When the plan wrote nothing, the feed takes
    /// the file's row (another `Feed` may have written it) and nil comes back.
    /// - Parameters:
    ///   - creatingFeed: Whether a feed row the file lacks is created, or the write refused.
    ///   - spreading: Whether the rows written are copies of the items that the other feeds holding
    ///     them take too, when the item type shares its items (a server page, a local update, an
    ///     optimistic update and its rollback).
    func write(
        creatingFeed: Bool = true, spreading: Bool = false, _ plan: (PageStore, inout FeedRecord) throws -> Commit?
    ) throws -> Commit? {
        let written = try writer.commit(
            over: loaded.record, creatingFeed: creatingFeed, edits: optimistic, spreading: spreading, plan)
        if let remain = written.pendingEditsRemain { optimistic.mayHavePending = remain }
        reportDropped(written.droppedEdits)
        guard let commit = written.commit else {
            // Nothing written: another `Feed` may have written the file, which this one follows.
            if written.file != loaded.record { followFileRecordingErrors() }
            return nil
        }
        return commit
    }

    /// Ends `task`'s operation with its outcome: a commit (nil when there was nothing this feed may
    /// write, because the response was superseded) or an error. The activity says what follows
    /// (see ``FeedActivity/finished(_:task:_:)``), and the feed performs it.
    func complete(
        _ operation: FeedActivity.Operation, task: FeedActivity.TaskID, _ request: PageRequest?, generation: Int64,
        since started: ContinuousClock.Instant, _ outcome: Result<Commit?, any Error>
    ) {
        var context = ActionContext(request: request, generation: generation, started: started)
        let ended: FeedActivity.Outcome
        switch outcome {
        case .success(let commit?):
            context.commit = commit
            ended = .committed
        case .success(nil): ended = .nothingWritten
        case .failure(let error) where Self.isCancellation(error): ended = .cancelled
        case .failure(let error): ended = .failed(FeedActivity.Failure(error: FeedError(error), at: .now))
        }
        let actions = activity.finished(operation, task: task, ended)
        perform(actions, context)
        if actions.contains(.applyCommit) { perform(activity.committed(operation, record: loaded.record), context) }
    }

    /// Whether a fetch ended because its task was cancelled, not because it failed.
    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let error = error as? URLError, error.code == .cancelled { return true }
        return Task.isCancelled
    }

    /// Writes a refreshed first page in one transaction, or returns nil if the refresh lost its
    /// place meanwhile (see ``refreshTransaction(task:generation:_:)``).
    func commitRefresh(
        _ page: Page<Item>, task: FeedActivity.TaskID, generation: Int64, continuing: Bool = false
    ) throws -> Commit? {
        let (encoded, items) = try encode(page.items)
        let write = PageWrite(
            request: .first, requestCursor: nil, olderCursor: page.olderCursor, newerCursor: page.newerCursor)
        let policy = self.policy
        return try refreshTransaction(task: task, generation: generation, continuing: continuing) { store, feed in
            try Self.merge(encoded, items: items, page: write, into: &feed, policy: policy, store: store)
        }
    }

    /// Runs one write of a refresh: `body` changes the rows; the feed's generation, age and state,
    /// and the policy's row limit, are applied in the same transaction.
    ///
    /// Returns nil when nothing was written: the refresh no longer owns its activity, or another
    /// `Feed` committed a newer refresh (the generation is compared inside the transaction), in which
    /// case this feed takes the file's rows and generation through ``followFile(mayWrite:)``. `continuing` is
    /// for a refresh's later writes, after it committed its generation itself.
    func refreshTransaction(
        task: FeedActivity.TaskID, generation: Int64, continuing: Bool = false,
        _ body: (PageStore, inout FeedRecord) throws -> Commit
    ) throws -> Commit? {
        let policy = self.policy
        return try write(spreading: true) { store, feed in
            guard activity.owns(task, .refresh) else { return nil }
            // Strictly older: two feeds that read one generation and both bumped it (a relaunch while
            // the old process still waited for a response) must not both commit. The first wins.
            guard feed.generation < generation || (continuing && feed.generation == generation) else { return nil }
            var commit = try body(store, &feed)
            feed.generation = generation
            // Whole milliseconds, as the file keeps them: the record in memory equals the file's.
            feed.lastRefreshAt = Date(millisecondsSince1970: Date().millisecondsSince1970)
            feed.loaded = true
            feed.lastError = nil
            if let maxRows = policy.maxRows, feed.rowCount > maxRows {
                let before = feed.rowCount
                let removed = try Trimmer.trim(&feed, maxRows: maxRows, in: store)
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
                            reloaded: commit.change.reloaded, reloadedIDs: commit.change.reloadedIDs)
                        : .fullReload
                    commit.window = .reload
                }
            }
            try store.save(&feed)
            commit.record = feed
            return commit
        }
    }

    /// Writes a page that is newer than the cached head on top of it, dropping ids the feed has.
    func commitNewer(
        _ page: Page<Item>, askedWith cursor: String, task: FeedActivity.TaskID, generation: Int64, continuing: Bool
    ) throws -> Commit? {
        let (encoded, items) = try encode(page.items)
        // Without a newer cursor the server gives no way further up: keep the one that got here.
        let write = PageWrite(
            request: .newer, requestCursor: cursor, olderCursor: page.olderCursor,
            newerCursor: page.newerCursor ?? cursor)
        return try refreshTransaction(task: task, generation: generation, continuing: continuing) { store, feed in
            let known = try store.items(withIDs: encoded.map(\.itemID), in: feed)
            // New items go on top, above the first row the feed has. An item it lacks below that row
            // (one the app removed, listed again) would be out of place on top: the merge of a later
            // first page puts it back where it belongs.
            let fresh = Array(encoded.indices.prefix { known[encoded[$0].itemID] == nil })
            let deleted = try Self.deleteRowsSkipped(byNewerPage: encoded, known: known, fresh: fresh, in: &feed, store)
            let newItems = fresh.map { encoded[$0] }
            let positions = try store.prependPage(newItems, page: write, to: &feed)
            let rows = Self.newRows(fresh.map { items[$0] }, newItems, positions: positions)
            return Commit(
                record: feed, change: RowChange(deleted: deleted, inserted: Array(0..<newItems.count)),
                window: deleted.isEmpty ? .prepend(rows, reloads: []) : .reload)
        }
    }

    /// Deletes the rows a newer page that repeats rows skipped (see
    /// ``ProvenDeletions/delete(skippedBy:known:attachedAt:edge:in:store:)``).
    ///
    /// A newer page repeats rows when the feed's newer cursor lagged behind its head. It lists a
    /// stretch of the server's list without holes: from its first item, which is the new top when
    /// the page brings new items (they go on top), or else its first repeated row, down to its last
    /// repeated row.
    /// - Returns: The deleted rows' indices, ascending.
    private static func deleteRowsSkipped(
        byNewerPage encoded: [EncodedItem], known: [String: StoredItem], fresh: [Int], in feed: inout FeedRecord,
        _ store: PageStore
    ) throws -> [Int] {
        let repeated = encoded.indices.compactMap { offset in
            known[encoded[offset].itemID].map { (offset: offset, position: $0.position) }
        }
        guard let lastRepeated = repeated.last else { return [] }
        if fresh.first == 0, let top = feed.topPosition {
            // From the top row down: the edge is the place right above it.
            return try ProvenDeletions.delete(
                skippedBy: encoded, known: repeated, attachedAt: .upper, edge: PageStore.position(top, movedBy: -1),
                in: &feed, store: store)
        }
        return try ProvenDeletions.delete(
            skippedBy: encoded, known: repeated, attachedAt: .lower, edge: lastRepeated.position, in: &feed,
            store: store)
    }

    /// The merge itself: the plan from ``RefreshMerge`` carried out in the store.
    private static func merge(
        _ encoded: [EncodedItem], items: [Item], page: PageWrite, into feed: inout FeedRecord, policy: FeedPolicy,
        store: PageStore
    ) throws -> Commit {
        if encoded.isEmpty, page.olderCursor != nil, feed.rowCount > 0 {
            // An empty newest page that still points to older ones (a server that filtered its top
            // page empty) is nothing new, not an empty list.
            try store.prependPage([], page: page, to: &feed)
            return Commit(record: feed, change: RowChange(), window: .prepend(LoadedRows(), reloads: []))
        }
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
            // No older cursor and no end: no page was ever fetched, the cached rows are local only.
            let neverFetched = feed.oldestCursor == nil && !feed.endReached
            // The old head's newer cursor fills the gap from its bottom, unless a row of that head
            // moved up into the page: the cursor then names a place above the gap.
            let oldHeadNewerCursor = matches.isEmpty ? feed.newestCursor : nil
            let positions = try store.prependPage(encoded, page: page, to: &feed)
            if neverFetched {
                // No server rows are missing between local rows and the page: its cursor continues
                // below them.
                try store.advanceOlderCursor(to: page.olderCursor, in: &feed)
            } else if let lastNew = positions.last {
                try store.addGap(at: lastNew, cursor: page.olderCursor, newerCursor: oldHeadNewerCursor, in: feed)
            }
            let rows = newRows(items, encoded, positions: positions)
            // The moved items are deleted and inserted rows: named by id when their content changed.
            let changed = encoded.filter { item in matches[item.itemID].map { $0.payload != item.payload } ?? false }
            return Commit(
                record: feed,
                change: RowChange(
                    deleted: deleted, inserted: Array(0..<encoded.count), reloadedIDs: changed.map(\.itemID)),
                window: deleted.isEmpty ? .prepend(rows, reloads: []) : .reload)
        case .noOverlap:
            try store.replaceFeed(with: encoded, page: page, in: &feed)
            return Commit(record: feed, change: .fullReload, window: .reload)
        case .prepend(let newItems, let reloads):
            let positions = try store.prependPage(newItems, page: page, to: &feed)
            for reload in reloads { try store.updateItem(reload.item, at: head[reload.row].position, in: &feed) }
            let rows = newRows(Array(items[..<newItems.count]), newItems, positions: positions)
            let reloadedRows = reloads.map { reload in
                (
                    row: reload.row, item: items[newItems.count + reload.row],
                    key: RowKey(
                        id: reload.item.itemID, position: head[reload.row].position, section: reload.item.section)
                )
            }
            return Commit(
                record: feed,
                change: RowChange(
                    inserted: Array(0..<newItems.count), reloaded: reloads.map(\.row),
                    reloadedIDs: reloads.map(\.item.itemID)),
                window: .prepend(rows, reloads: reloadedRows))
        case .rewrite(let through, let relocated, let change):
            for item in relocated { _ = try store.removeItem(item.itemID, from: &feed) }
            try store.replaceHead(through: through, with: encoded, page: page, in: &feed)
            return Commit(record: feed, change: change, window: .reload)
        }
    }

    /// Loaded rows for items just written, at the positions the store gave them.
    static func newRows(_ items: [Item], _ encoded: [EncodedItem], positions: [Int64]) -> LoadedRows<Item> {
        var keys: [RowKey] = []
        keys.reserveCapacity(encoded.count)
        for (item, position) in zip(encoded, positions) {
            keys.append(RowKey(id: item.itemID, position: position, section: item.section))
        }
        return LoadedRows(items: items, keys: keys)
    }

    /// Takes a commit's record, updates the rows in memory, the sections and gaps, and emits.
    func apply(_ commit: Commit) throws {
        var commit = commit
        // Another writer's change comes from the file's change record: checked against the rows
        // before emitting (see ``RowChange/checked(from:to:)``). The rows before are kept (copy on
        // write) for that, and for the rare commit after which another writer wrote at once.
        let (windowBefore, rowCountBefore) = (loaded.window, loaded.record.rowCount)
        var takesRecordedChanges = commit.adoptsFile
        if commit.adoptsFile {
            activity.adopt(fileGeneration: commit.record.generation)
            // Another `Feed` may have left edits pending: they are read from the file.
            optimistic.mayHavePending = true
        }
        let previousLayout = loaded.layout
        let hadGaps = !loaded.gaps.isEmpty
        if commit.record.endReached {
            // The feed ended (a refresh replaced it with a list that ends): a next page that failed
            // from the old bottom has nothing left to retry.
            activity.forgetFailure(.nextPage)
        }
        loaded.record = commit.record
        var undecodable = commit.undecodable
        // Other writers' writes taken here, reported once the change is checked against the rows.
        var followed = commit.followed.map { [$0] } ?? []
        // A window read again after another writer committed shows that writer's rows too: its
        // recorded changes follow the commit's in the same batch, or the list takes the rows whole.
        func reload() throws -> [UndecodableRow] {
            let held = loaded.record
            let read = try reloadWindow()
            guard let later = read.changedSince else { return read.undecodable }
            activity.adopt(fileGeneration: loaded.record.generation)
            optimistic.mayHavePending = true
            let composed = later.flatMap {
                commit.change.followed(
                    by: $0, oldCount: held.rowCount - commit.change.rowDelta, middleCount: held.rowCount,
                    newCount: loaded.record.rowCount)
            }
            commit.change = composed ?? .fullReload
            takesRecordedChanges = true
            followed.append(Commit.FollowedWrite(later))
            return read.undecodable
        }
        switch commit.window {
        case .append(let rows, let oldCount): loaded.window.append(rows, oldCount: oldCount)
        case .prepend(let rows, let reloads):
            for reload in reloads { loaded.window.reload(row: reload.row, item: reload.item, key: reload.key) }
            loaded.window.prepend(rows)
        case .reload: undecodable = try reload()
        case .read(let rows, let start):
            loaded.window.start = start
            loaded.window.rows = rows
        }
        if loaded.window.end > loaded.record.rowCount { undecodable += try reload() }
        // Rows the window met that do not decode go in this change, as deletions: no snapshot
        // counts a row it cannot show. Each round removes rows, so it ends.
        var removedAny = false
        while !undecodable.isEmpty {
            let rowsBefore = loaded.record.rowCount
            let (removed, foreign) = try removeUndecodable(undecodable)
            if foreign {
                // Another `Feed` wrote meanwhile: the rows shown are not the ones removed from.
                activity.adopt(fileGeneration: loaded.record.generation)
                optimistic.mayHavePending = true
                commit.change = .fullReload
            }
            guard !removed.isEmpty || foreign else { break }
            removedAny = true
            commit.change = commit.change.followed(
                byRemoving: removed.map(\.index), ids: Set(removed.map(\.row.itemID)),
                oldCount: rowsBefore - commit.change.rowDelta)
            undecodable = try reload()
        }
        // Gaps move only when there are some, and appear only from a keepGap refresh (rows on top);
        // sections exist only for feeds with section keys. Anything else needs no read at all, which
        // keeps every plain next page and refresh free of an extra transaction.
        let gapsMayChange =
            hadGaps || removedAny || commit.change.isFullReload
            || (policy.gapPolicy == .keepGap && commit.change.inserted.first == 0)
        if loaded.record.hasSections || gapsMayChange {
            try queue.read { store in
                loaded.layout = try Self.layout(of: loaded.record, in: store)
                if gapsMayChange { loaded.gaps = try Self.gaps(of: loaded.record, in: store) }
            }
            activity.keepGaps(Set(loaded.gaps.map(\.record.id)))
        } else {
            loaded.layout = SectionLayout(unsectionedRowCount: loaded.record.rowCount)
        }
        if takesRecordedChanges {
            let before = RowChange.ShownRows(
                ids: windowBefore.rows.keys.map(\.id), start: windowBefore.start, count: rowCountBefore)
            let checked = commit.change.checked(from: before, to: shownRows)
            // A record that contradicts the rows (edited in the file) is no change to emit, nor to
            // report: the list took the rows whole.
            if checked.isFullReload && !commit.change.isFullReload { followed = [.whole] }
            commit.change = checked
        }
        emit(commit.change, previousLayout: previousLayout)
        for write in followed { reportFollowed(write) }
    }

    /// The ids of the rows the feed holds in memory, where they start and among how many rows.
    var shownRows: RowChange.ShownRows {
        RowChange.ShownRows(
            ids: loaded.window.rows.keys.map(\.id), start: loaded.window.start, count: loaded.record.rowCount)
    }

    /// Reads the window's rows again from the cache, keeping its start, with the feed's row in the
    /// same read.
    /// - Returns: The rows read that do not decode (the window stops right above the first of them,
    ///   and the caller removes them, ``removeUndecodable(_:)``, before it emits); and, when the
    ///   file's row is no longer the one held (another writer committed after this feed's commit, so
    ///   the feed now holds the file's row and the rows read are that state's), the recorded change
    ///   since the row held, or `.some(nil)` when the change record does not cover it.
    func reloadWindow() throws -> (undecodable: [UndecodableRow], changedSince: RowChange??) {
        let (record, window, key) = (loaded.record, loaded.window, self.key)
        let read = try queue.read { store in
            let file = try store.feed(key: key) ?? record
            let change: RowChange?? =
                file == record ? nil : .some(try ChangeChain.change(from: record, to: file, in: store))
            return (file, try window.read(of: file, from: window.start, in: store), change)
        }
        let decoded = LoadedRows.decoding(read.1.stored, codec: codec)
        loaded.window.start = read.1.start
        loaded.window.rows = decoded.rows
        loaded.record = read.0
        return (decoded.undecodable, read.2)
    }

    /// Records a failed fetch in the cache for `pagedb`, best effort: a storage failure here must not
    /// hide the fetch's own error.
    func recordError(_ error: FeedError) {
        // A busy file would only make this write wait out the same lock a second time.
        // A read-only store records nothing: the failure shows in the feed's activity only.
        guard error.storageKind != .busy, !queue.isReadOnly, let written = try? writer.record(error: error.message)
        else { return }
        var inStep = loaded.record
        inStep.lastError = error.message
        inStep.changeCount &+= 1
        // Another `Feed`'s write stays noticeable: only a row this feed held takes the new count.
        if written == inStep { loaded.record = written } else { loaded.record.lastError = error.message }
    }
}
