import Foundation

/// Loading older pages and prefetching as rows appear.
extension Feed {
    /// Loads the page older than the bottom row, using the feed's persisted older-side cursor.
    ///
    /// Items the feed already has are dropped, so no id appears twice; new rows are inserted at the
    /// end. A nil older cursor ends the feed (``NextPageActivity/endReached``). A page of only known
    /// items whose older cursor moved on is progress (page-numbered APIs shift as items arrive on
    /// top): the feed follows that cursor at once. It stops with ``FeedError/Kind/paginationLoop``
    /// when the server repeats a cursor, or after ``FeedPolicy/maxPagesWithoutNewItems`` pages in a
    /// row with nothing new. A call while a next page is loading joins it: one fetch, and both
    /// callers return when it is done. A cancelled caller returns at once (see
    /// `waitForNextPage(_:_:startedByCaller:)`).
    public func loadNextPage() async {
        if case .loading(let id) = activity.nextPage, let task = running.tasks[id] {
            report(.joined, loaded.record.oldestCursor.map { .olderThan(cursor: $0) }, generation: activity.generation)
            return await waitForNextPage(id, task, startedByCaller: false)
        }
        guard !Task.isCancelled, let task = startNextPage(), case .loading(let id) = activity.nextPage else { return }
        await waitForNextPage(id, task, startedByCaller: true)
    }

    /// Tells the feed that `row` became visible: the window of loaded rows follows it, and the next
    /// page starts when fewer than ``FeedPolicy/prefetchDistance`` rows remain below it.
    ///
    /// Nothing is fetched when the feed has ended, a next page is loading, or the last one failed
    /// (that waits for ``retry()``). Returns without waiting for the network.
    public func rowDidAppear(_ row: Int) {
        guard row >= 0, row < loaded.record.rowCount else { return }
        followRows(around: row)
        rowAppeared(row)
        prefetchIfNearBottom()
    }

    /// Waits until no fetch started in the background (a prefetched next page) is in flight.
    package func waitForBackgroundFetches() async {
        while let task = running.tasks.values.first { await task.value }
    }

    /// Starts a next-page fetch, or returns nil when none is possible.
    ///
    /// The activity turns `loading` here, synchronously, together with the task that owns it: never
    /// later from inside a task that a refresh may already have superseded.
    @discardableResult
    func startNextPage() -> Task<Void, Never>? {
        guard !refusedBeforeFetching(.nextPage) else { return nil }
        // The bottom as the file has it: the page's batch names rows below the file's rows.
        syncWithFileRecordingErrors()
        guard !loaded.record.endReached, let cursor = loaded.record.oldestCursor else { return nil }
        let bottom: NextPageBottom
        do {
            bottom = NextPageBottom(cursor: cursor, rowID: try bottomRowID())
        } catch {
            let actions = activity.refused(
                .nextPage, failure: FeedActivity.Failure(error: FeedError(error), at: clock.now()))
            perform(actions, ActionContext(request: .olderThan(cursor: cursor), generation: activity.generation))
            return nil
        }
        guard let id = activity.nextPageStarted() else { return nil }
        let generation = activity.generation
        emit()
        let task = Task { await self.runNextPage(from: bottom, task: id, generation: generation) }
        running.tasks[id] = task
        return task
    }

    /// The id of the bottom row, read from the cache: the commit compares it with the cache's, so
    /// both must come from the same place (a window that disagreed with the file would make every
    /// page superseded, and a reader at the bottom restart it for ever). One statement: no
    /// transaction around it, on every next page.
    private func bottomRowID() throws -> String? {
        let record = loaded.record
        return try queue.readStatement { store in try store.bottomRowID(of: record) }
    }

    private func runNextPage(from bottom: NextPageBottom, task: FeedActivity.TaskID, generation: Int64) async {
        defer { running.ended(task) }
        var run = NextPageRun(from: bottom, limit: policy.maxPagesWithoutNewItems)
        while activity.owns(task, .nextPage) {
            let request = PageRequest.olderThan(cursor: run.bottom.cursor)
            report(.requestStarted, request, generation: generation)
            let started = clock.now()
            let outcome: Result<Commit?, any Error>
            do {
                let page = try await fetch(request)
                guard activity.owns(task, .nextPage) else {
                    return report(.superseded, request, generation: generation, since: started)
                }
                if let loop = run.refusal(ofAnswerPointingTo: page.olderCursor) { throw loop }
                let commit = try commitNextPage(page, continuing: run.bottom)
                if let commit, let next = commit.advancedCursor {
                    // The cursor is saved, and no row was added or removed: nothing to emit unless
                    // the write did more (``FeedCommit/movesOnlyTheRecord``).
                    if commit.movesOnlyTheRecord {
                        loaded.record = commit.record
                    } else {
                        try apply(commit)
                    }
                    if let loop = run.follow(next) { throw loop }
                    report(.committed, request, generation: generation, since: started)
                    continue
                }
                outcome = .success(commit)
            } catch {
                outcome = .failure(error)
            }
            return complete(.nextPage, task: task, request, generation: generation, since: started, outcome)
        }
    }

    /// Writes a next page in one transaction, if the feed still ends at the bottom it continues;
    /// nil when it no longer does (a newer refresh replaced the bottom, or the feed is gone).
    private func commitNextPage(_ page: Page<Item>, continuing bottom: NextPageBottom) throws -> Commit? {
        let (encoded, items) = try encode(page.items)
        let write = PageWrite(
            request: .older, requestCursor: bottom.cursor, olderCursor: page.olderCursor,
            newerCursor: page.newerCursor, fetchedAt: clock.date())
        return try self.write(creatingFeed: false) { store, feed in
            // The bottom this page continues must still be the feed's bottom; a refresh that kept the
            // bottom (it merged on top) does not make the page stale, one that replaced it does.
            guard bottom.isContinued(byBottomOf: feed, bottomRowID: try store.bottomRowID(of: feed)) else { return nil }
            var commit = try Self.appendCommit(encoded, items: items, page: write, to: &feed, store: store)
            commit.advancedCursor = NextPageRun.advancedCursor(of: commit.change, olderCursor: page.olderCursor)
            return commit
        }
    }

    /// Appends a page's new items and describes the change.
    private static func appendCommit(
        _ encoded: [EncodedItem], items: [Item], page: PageWrite, to feed: inout FeedRecord, store: PageStore
    ) throws -> Commit {
        let oldCount = feed.rowCount
        let oldBottom = feed.bottomPosition
        // A page with nothing new that goes on stores no page row: it only moves the cursor on (see
        // NextPageOutcome). The page that ends the feed is stored even with no rows.
        let written = try store.appendPage(encoded, page: page, to: &feed, storingEmptyPage: false)
        // The server's copies of the items the page added: the other feeds sharing them take them too.
        let copies = written.count == encoded.count ? encoded : written.map { encoded[$0.offset] }
        // Only a page that repeats rows can prove deletions: the usual page pays no look-up.
        if written.count < encoded.count, let bottom = oldBottom {
            let known = try store.items(withIDs: encoded.map(\.itemID), in: feed)
            let deleted = try deleteRowsSkipped(
                by: encoded, as: .next(bottom: bottom), known: known, in: &feed, store: store)
            if !deleted.isEmpty {
                // The rows above moved up: the window is read again rather than appended to.
                let firstNew = oldCount - deleted.count
                return Commit(
                    record: feed,
                    change: RowChange(deleted: deleted, inserted: Array(firstNew..<(firstNew + written.count))),
                    window: .reload, copies: copies)
            }
        }
        var keys: [RowKey] = []
        keys.reserveCapacity(written.count)
        for row in written {
            let item = encoded[row.offset]
            keys.append(RowKey(id: item.itemID, position: row.position, section: item.section))
        }
        let rows = LoadedRows(
            items: written.count == items.count ? items : written.map { items[$0.offset] }, keys: keys)
        return Commit(
            record: feed, change: RowChange(inserted: Array(oldCount..<(oldCount + written.count))),
            window: .append(rows, oldCount: oldCount), copies: copies)
    }
}
