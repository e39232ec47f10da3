import Foundation

/// Filling gaps.
extension Feed {
    /// Fetches a page for `gap` from one of its ends and inserts it there.
    ///
    /// From the ``GapEnd/top`` (the default) the page is older than the rows above, fetched with
    /// their older cursor; from the ``GapEnd/bottom`` it is newer than the rows below, fetched with
    /// their newer cursor (``FeedGap/canFillFromBottom``), and goes right above them. The change
    /// names the inserted rows. The gap closes when the page reaches rows the feed has on the far
    /// side; otherwise what remains of it stays, ready for the next call. When the server says there
    /// is nothing further while rows remain beyond, the gap becomes ``GapActivity/unfillable``, and
    /// loading it again does nothing. While it loads, the gap's ``FeedGap/state`` is
    /// ``GapActivity/loading``; a failure shows there and ``retry()`` repeats it from the same end.
    /// A refresh supersedes a fill in flight. A cancelled caller returns at once, and its fill is dropped.
    public func loadGap(_ gap: FeedGap, from end: GapEnd = .top) async {
        await fillGap(id: gap.id, from: end)
    }

    /// Removes a gap: the app will not show or fill it any more (typically an
    /// ``GapActivity/unfillable`` one, after the user saw that posts are missing).
    ///
    /// A fill in flight for it is dropped when it returns.
    public func dismissGap(_ gap: FeedGap) {
        do {
            let removed = try write(creatingFeed: false) { store, feed in
                try store.removeGap(id: gap.id, in: feed)
                // Saved for its change count: other feeds of this feed see the gap go.
                try store.save(&feed)
                return .unchangedRows(feed)
            }
            guard let removed else { return }
            activity.forgetGap(gap.id)
            try apply(removed)
        } catch {
            recordError(FeedError(error))
        }
    }

    /// Fills the gap with `id` from `end`; see ``loadGap(_:from:)``.
    func fillGap(id: Int64, from end: GapEnd) async {
        // The gap and its cursors as the file has them: another `Feed` may have filled or moved it.
        if !queue.isClosed { syncWithFileRecordingErrors() }
        guard !Task.isCancelled, !refusedBeforeFetching(.gap(id)),
            let gap = loaded.gaps.first(where: { $0.record.id == id })?.record,
            !gap.unfillable,
            let cursor = end == .top ? gap.cursor : gap.newerCursor, let task = activity.gapStarted(id, from: end)
        else { return }
        let generation = activity.generation
        emit()
        let request = end == .top ? PageRequest.olderThan(cursor: cursor) : .newerThan(cursor: cursor)
        report(.requestStarted, request, generation: generation)
        let started = clock.now()
        let outcome: Result<Commit?, any Error>
        do {
            let page = try await fetch(request)
            outcome = .success(
                activity.owns(task, .gap(id))
                    ? try commitGap(id, from: end, page, cursor: cursor, generation: generation) : nil)
        } catch {
            outcome = .failure(error)
        }
        complete(.gap(id), task: task, request, generation: generation, since: started, outcome)
    }

    /// Fills every gap this refresh made, from the top, up to ``FeedPolicy/autoFillGapPages`` pages
    /// each: a small gap closes without the user asking, as Mastodon's web client does.
    func autoFillGaps(madeAfter existing: Set<Int64>) async {
        guard policy.autoFillGapPages > 0 else { return }
        for gap in loaded.gaps.map(\.record) where !existing.contains(gap.id) {
            for _ in 0..<policy.autoFillGapPages {
                guard let current = loaded.gaps.first(where: { $0.record.id == gap.id })?.record,
                    !current.unfillable, activity.phase(of: .gap(gap.id)) == .idle
                else { break }
                await fillGap(id: gap.id, from: .top)
            }
        }
    }

    /// Writes a gap's page in one transaction, or returns nil when the gap is gone or a newer refresh
    /// committed (the feed then takes the file's state: another `Feed` may have filled the gap).
    private func commitGap(
        _ id: Int64, from end: GapEnd, _ page: Page<Item>, cursor: String, generation: Int64
    ) throws -> Commit? {
        let encoded = try encode(page.items).encoded
        let next = end == .top ? page.olderCursor : page.newerCursor
        let written = try write(creatingFeed: false) { store, feed in
            guard feed.generation <= generation,
                let fill = try GapFiller.fill(
                    gap: id, from: end, with: encoded, cursor: next, order: policy.itemOrder, in: &feed, store: store)
            else { return nil }
            if fill.rows.isEmpty, !fill.closed, !fill.unfillable, next == cursor {
                // Thrown inside the transaction: nothing of this page is written.
                throw FeedError(
                    .paginationLoop,
                    message: "The server answered a gap's page with nothing new and the cursor it was asked with; "
                        + "stopped to avoid a loop")
            }
            let change = RowChange(
                deleted: fill.deletedRows, inserted: Array(fill.firstRow..<(fill.firstRow + fill.rows.count)))
            return Commit(
                record: feed, change: change, window: .reload, copies: fill.rows.map { encoded[$0.offset] })
        }
        guard let commit = written else { return nil }
        if let loop = loopAfterFill(gap: id, commit) {
            // The page is in the file: the feed takes it before it stops, as a run of next pages
            // does, so that the feed and the file stay one state.
            try apply(commit)
            throw loop
        }
        return commit
    }

    /// Stops a gap whose fills keep coming back with nothing new while its cursor moves (a server
    /// cycling cursors): after ``FeedPolicy/maxPagesWithoutNewItems`` such fills in a row, the
    /// ``FeedError/Kind/paginationLoop`` error the fill fails with, instead of moving on for ever.
    private func loopAfterFill(gap id: Int64, _ commit: Commit) -> FeedError? {
        let nothingNew = commit.change.inserted.isEmpty && commit.change.deleted.isEmpty
        let stillOpen = loaded.gaps.contains { $0.record.id == id && !$0.record.unfillable }
        guard
            let count = activity.gapFilled(
                id, broughtNothingNew: nothingNew && stillOpen, limit: policy.maxPagesWithoutNewItems)
        else { return nil }
        return FeedError(
            .paginationLoop, message: "\(count) pages in a row for this gap held nothing new; stopped to avoid a loop")
    }
}
