import Foundation

/// Local edits, and filling gaps.
extension Feed {
    /// Removes the item with `id` from the feed and the cache.
    /// - Returns: Whether the feed had it.
    /// - Throws: ``FeedError`` when the cache cannot be written.
    @discardableResult
    public func remove(id: Item.ID) throws -> Bool {
        let storedID = Item.storedID(for: id)
        return try edit { store, feed in
            guard let removed = try store.removeItem(storedID, from: &feed) else { return nil }
            return RowChange(deleted: [removed.row])
        }
    }

    /// Replaces the item with the same id, in place (a reload of its row).
    /// - Returns: Whether the feed had it.
    /// - Throws: ``FeedError`` when the item cannot be encoded or the cache cannot be written.
    @discardableResult
    public func update(_ item: Item) throws -> Bool {
        let encoded = try encode([item]).encoded[0]
        return try edit { store, feed in
            guard let stored = try store.items(withIDs: [encoded.itemID], in: feed)[encoded.itemID],
                try store.updateItem(encoded, in: &feed)
            else { return nil }
            return RowChange(reloaded: [try store.rowIndex(ofPosition: stored.position, in: feed)])
        }
    }

    /// Inserts an item so that it becomes row `row` (clamped to the feed; the row count appends).
    /// - Throws: ``FeedError`` when the feed already has an item with this id, or the cache cannot be written.
    public func insert(_ item: Item, at row: Int) throws {
        let encoded = try encode([item]).encoded[0]
        _ = try edit { store, feed in
            let position = try store.insertItem(encoded, atRow: row, in: &feed)
            return RowChange(inserted: [try store.rowIndex(ofPosition: position, in: feed)])
        }
    }

    /// Trims whole pages from the bottom until at most `maxRows` rows remain, now (for example on a
    /// memory warning); the older cursor moves with them, so the next page resumes below the rest.
    /// - Returns: How many rows were removed.
    /// - Throws: ``FeedError`` when the cache cannot be written.
    @discardableResult
    public func trim(maxRows: Int) throws -> Int {
        var removed = 0
        _ = try edit { store, feed in
            let before = feed.rowCount
            removed = try store.trim(&feed, maxRows: max(maxRows, 0))
            return removed == 0 ? nil : RowChange(deleted: Array((before - removed)..<before))
        }
        if removed > 0, !record.endReached, nextPageActivity == .endReached { nextPageActivity = .idle }
        return removed
    }

    /// Fetches the page that fills `gap` and inserts it under the row above the gap.
    ///
    /// The gap closes when the page reaches the rows below it (an id the feed already has) or the
    /// server's end; otherwise it moves down under the new rows, ready for the next call.
    public func loadGap(_ gap: FeedGap) async {
        let myGeneration = generation
        let cursor = try? queue.read { store in
            try store.gaps(of: record).first { $0.abovePosition == gap.abovePosition }?.cursor
        }
        guard let cursor = cursor ?? nil else { return }
        let request = PageRequest.olderThan(cursor: cursor)
        report(.requestStarted, request, generation: myGeneration)
        let started = ContinuousClock.now
        do {
            let page = try await source.fetch(request)
            guard myGeneration == generation else {
                return report(.superseded, request, generation: myGeneration, since: started)
            }
            let encoded = try encode(page.items).encoded
            let fill = try queue.write { store -> (FeedRecord, PageStore.GapFill)? in
                var feed = try store.ensureFeed(key: key)
                guard
                    let fill = try store.fillGap(
                        above: gap.abovePosition, with: encoded, olderCursor: page.olderCursor, in: &feed)
                else { return nil }
                return (feed, fill)
            }
            guard let (feed, result) = fill else { return }
            if lastFailure == .gap(gap) { lastFailure = nil }
            let change = RowChange(inserted: Array(result.firstRow..<(result.firstRow + result.inserted)))
            try apply(Commit(record: feed, change: change, window: .reload))
            report(.committed, request, generation: myGeneration, rows: result.inserted, since: started)
        } catch {
            let failure = FeedError(error)
            lastFailure = .gap(gap)
            recordError(failure)
            emit()
            report(.failed, request, generation: myGeneration, since: started, error: failure)
        }
    }

    /// Runs a local edit in one transaction and emits its change; nil from `body` means nothing changed.
    private func edit(_ body: (PageStore, inout FeedRecord) throws -> RowChange?) throws -> Bool {
        do {
            let result = try queue.write { store -> (FeedRecord, RowChange)? in
                var feed = try store.ensureFeed(key: key)
                guard let change = try body(store, &feed) else { return nil }
                return (feed, change)
            }
            guard let (feed, change) = result else { return false }
            try apply(Commit(record: feed, change: change, window: .reload))
            report(.edited, nil, generation: generation, rows: change.touchedRows)
            return true
        } catch {
            throw FeedError(error)
        }
    }
}
