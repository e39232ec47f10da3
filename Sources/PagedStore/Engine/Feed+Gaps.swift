import Foundation

/// Filling gaps.
extension Feed {
    /// Fetches the page that fills `gap` and inserts it right below the gap's place.
    ///
    /// The gap closes when the page reaches rows the feed has (an id it already has) or the server's
    /// end; otherwise it moves down under the new rows, ready for the next call. While it loads,
    /// the gap's ``FeedGap/state`` is ``GapActivity/loading``; a failure shows there and
    /// ``retry()`` repeats it. A refresh supersedes a fill in flight.
    public func loadGap(_ gap: FeedGap) async {
        await fillGap(id: gap.id)
    }

    /// Fills the gap with `id`; see ``loadGap(_:)``.
    func fillGap(id: Int64) async {
        guard !refusedBecauseClosed(.gap(id)), let gap = storedGaps.first(where: { $0.record.id == id })?.record,
            let cursor = gap.cursor,
            let task = activity.gapStarted(id)
        else { return }
        let generation = activity.generation
        emit()
        let request = PageRequest.olderThan(cursor: cursor)
        report(.requestStarted, request, generation: generation)
        let started = ContinuousClock.now
        let outcome: Result<Commit?, any Error>
        do {
            let page = try await source.fetch(request)
            outcome = .success(
                activity.owns(task, .gap(id)) ? try commitGap(id, page, cursor: cursor, generation: generation) : nil)
        } catch {
            outcome = .failure(error)
        }
        complete(.gap(id), task: task, request, generation: generation, since: started, outcome)
    }

    /// Writes a gap's page in one transaction, or returns nil when the gap is gone or a newer refresh
    /// committed (the feed then takes the file's state: another `Feed` may have filled the gap).
    private func commitGap(_ id: Int64, _ page: Page<Item>, cursor: String, generation: Int64) throws -> Commit? {
        let encoded = try encode(page.items).encoded
        let outcome = try queue.write { store -> (commit: Commit?, file: FeedRecord?) in
            guard var feed = try store.feed(key: key) else { return (nil, nil) }
            guard feed.generation <= generation,
                let fill = try store.fillGap(id: id, with: encoded, olderCursor: page.olderCursor, in: &feed)
            else { return (nil, feed) }
            if fill.rows.isEmpty, !fill.closed, page.olderCursor == cursor {
                // Thrown inside the transaction: nothing of this page is written.
                throw FeedError(
                    .paginationLoop,
                    message: "The server answered a gap's page with nothing new and the cursor it was asked with; "
                        + "stopped to avoid a loop")
            }
            let change = RowChange(inserted: Array(fill.firstRow..<(fill.firstRow + fill.rows.count)))
            return (Commit(record: feed, change: change, window: .reload), nil)
        }
        guard let commit = outcome.commit else {
            resync(with: outcome.file)
            return nil
        }
        try countFillWithoutNewRows(gap: id, commit.change.inserted.isEmpty)
        return commit
    }

    /// Stops a gap whose fills keep coming back with nothing new while its cursor moves (a server
    /// cycling cursors): after ``FeedPolicy/maxPagesWithoutNewItems`` such fills in a row, the fill
    /// fails with ``FeedError/Kind/paginationLoop`` instead of moving on for ever.
    private func countFillWithoutNewRows(gap id: Int64, _ nothingNew: Bool) throws {
        guard nothingNew, storedGaps.contains(where: { $0.record.id == id }) else {
            fillsWithoutNewRows[id] = nil
            return
        }
        let count = (fillsWithoutNewRows[id] ?? 0) + 1
        fillsWithoutNewRows[id] = count
        if count >= policy.maxPagesWithoutNewItems {
            fillsWithoutNewRows[id] = nil
            throw FeedError(
                .paginationLoop,
                message: "\(count) pages in a row for this gap held nothing new; stopped to avoid a loop")
        }
    }
}
