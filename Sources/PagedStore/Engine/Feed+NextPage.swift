import Foundation

/// Loading older pages, prefetching as rows appear, and moving the window of loaded rows.
extension Feed {
    /// Loads the page older than the bottom row, using the feed's persisted older-side cursor.
    ///
    /// Items the feed already has are dropped, so no id appears twice; new rows are inserted at the
    /// end. A nil older cursor ends the feed (``NextPageActivity/endReached``). A response that
    /// repeats the cursor it was asked with, or holds only known items, fails with
    /// ``FeedError/Kind/paginationLoop`` instead of fetching forever. A call while a next page is
    /// loading joins it: one fetch, and both callers return when it is done.
    public func loadNextPage() async {
        if let running = nextPageTask {
            report(.joined, record.oldestCursor.map { .olderThan(cursor: $0) }, generation: generation)
            return await running.task.value
        }
        guard let task = startNextPage() else { return }
        await task.value
    }

    /// Tells the feed that `row` became visible: the window of loaded rows follows it, and the next
    /// page starts when fewer than ``FeedPolicy/prefetchDistance`` rows remain below it.
    ///
    /// Nothing is fetched when the feed has ended, a next page is loading, or the last one failed
    /// (that waits for ``retry()``). Returns without waiting for the network.
    public func rowDidAppear(_ row: Int) {
        guard row >= 0, row < record.rowCount else { return }
        focusRow = row
        if let range = window.rangeToLoad(around: row, rowCount: record.rowCount) {
            do {
                try moveWindow(to: range)
                emit()
            } catch {
                recordError(FeedError(error))
            }
        }
        if record.rowCount - 1 - row < policy.prefetchDistance, nextPageActivity == .idle {
            _ = startNextPage()
        }
    }

    /// Waits until no next page started by prefetch is in flight.
    package func waitUntilIdle() async {
        while let running = nextPageTask { await running.task.value }
    }

    /// Starts a next-page fetch, or returns nil when none is possible.
    private func startNextPage() -> Task<Void, Never>? {
        guard nextPageTask == nil, nextPageActivity != .endReached, let cursor = record.oldestCursor else {
            return nil
        }
        nextTaskID += 1
        let id = nextTaskID
        let task = Task { await self.runNextPage(cursor: cursor, taskID: id) }
        nextPageTask = (id, task)
        return task
    }

    private func runNextPage(cursor: String, taskID: Int) async {
        let myGeneration = generation
        let request = PageRequest.olderThan(cursor: cursor)
        nextPageActivity = .loading
        emit()
        report(.requestStarted, request, generation: myGeneration)
        let started = ContinuousClock.now
        defer { if nextPageTask?.id == taskID { nextPageTask = nil } }
        do {
            let page = try await source.fetch(request)
            guard myGeneration == generation, nextPageTask?.id == taskID else {
                return report(.superseded, request, generation: myGeneration, since: started)
            }
            guard let commit = try commitNextPage(page, cursor: cursor, generation: myGeneration) else {
                return report(.superseded, request, generation: myGeneration, since: started)
            }
            nextPageActivity = commit.record.endReached ? .endReached : .idle
            if lastFailure == .nextPage { lastFailure = nil }
            try apply(commit)
            report(.committed, request, generation: myGeneration, rows: commit.change.touchedRows, since: started)
        } catch {
            guard myGeneration == generation, nextPageTask?.id == taskID else {
                return report(.superseded, request, generation: myGeneration, since: started)
            }
            let failure = FeedError(error)
            nextPageActivity = .failed(failure)
            lastFailure = .nextPage
            lastRetryAfter = failure.retryAfter
            recordError(failure)
            emit()
            report(.failed, request, generation: myGeneration, since: started, error: failure)
        }
    }

    /// Writes a next page in one transaction, or returns nil when it no longer continues the feed:
    /// a newer refresh committed, or the bottom cursor moved on.
    private func commitNextPage(_ page: Page<Item>, cursor: String, generation: Int64) throws -> Commit? {
        if page.olderCursor == cursor {
            throw FeedError(
                .paginationLoop,
                message: "The server answered the next page with the cursor it was asked with; stopped to avoid a loop")
        }
        let (encoded, items) = try encode(page.items)
        let write = PageWrite(
            request: .older, requestCursor: cursor, olderCursor: page.olderCursor, newerCursor: page.newerCursor)
        return try queue.write { store -> Commit? in
            guard var feed = try store.feed(key: key), feed.generation <= generation, feed.oldestCursor == cursor
            else { return nil }
            let oldCount = feed.rowCount
            let inserted = try store.appendPage(encoded, page: write, to: &feed)
            if inserted.isEmpty, !encoded.isEmpty, page.olderCursor != nil {
                // Thrown inside the transaction: nothing of this page is written.
                throw FeedError(
                    .paginationLoop,
                    message: "The server's next page held only items the feed already has; stopped to avoid a loop")
            }
            let bottom = feed.bottomPosition ?? 0
            var keys: [RowKey] = []
            keys.reserveCapacity(inserted.count)
            for (offset, index) in inserted.enumerated() {
                let position = bottom - Int64(inserted.count - 1 - offset) * PageStore.positionStep
                keys.append(RowKey(id: encoded[index].itemID, position: position, section: encoded[index].section))
            }
            let rows = LoadedRows(
                items: inserted.count == items.count ? items : inserted.map { items[$0] }, keys: keys)
            return Commit(
                record: feed, change: RowChange(inserted: Array(oldCount..<(oldCount + inserted.count))),
                window: .append(rows, oldCount: oldCount))
        }
    }

    /// Drops a next page in flight: a refresh supersedes it, and its response will not be written.
    func supersedeNextPage() {
        guard let running = nextPageTask else { return }
        running.task.cancel()
        nextPageTask = nil
        if nextPageActivity == .loading { nextPageActivity = .idle }
    }

    /// Reads the rows of `range` into the window: by keyset when it continues the current window,
    /// otherwise by row number.
    private func moveWindow(to range: Range<Int>) throws {
        if let last = window.rows.keys.last, range.lowerBound >= window.start, range.lowerBound <= window.end,
            range.upperBound > window.end
        {
            // Scrolling down: keep the overlap, read only the rows below the window.
            let stored = try queue.read { store in
                try store.window(
                    of: record, from: .after(position: last.position), limit: range.upperBound - window.end)
            }
            var rows = window.rows[(range.lowerBound - window.start)..<window.rows.count]
            rows.append(try LoadedRows(decoding: stored, codec: codec))
            window.rows = rows
        } else if let first = window.rows.keys.first, range.upperBound <= window.end,
            range.upperBound >= window.start, range.lowerBound < window.start
        {
            // Scrolling up: read only the rows above the window.
            let stored = try queue.read { store in
                try store.window(
                    of: record, from: .before(position: first.position), limit: window.start - range.lowerBound)
            }
            var rows = try LoadedRows(decoding: stored, codec: codec)
            rows.append(window.rows[0..<(range.upperBound - window.start)])
            window.rows = rows
        } else {
            let stored = try queue.read { store in
                try store.window(of: record, from: .row(range.lowerBound), limit: range.count)
            }
            window.rows = try LoadedRows(decoding: stored, codec: codec)
        }
        window.start = range.lowerBound
    }
}
