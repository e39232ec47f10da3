import Foundation

/// The rows on screen: the scroll anchor that keeps them still, and the reading position saved
/// across launches.
extension Feed {
    /// Tells the feed which rows are on screen, first to last, and how far the app has scrolled into
    /// the first one (its `contentOffset` minus the row's top, in points).
    ///
    /// The window of loaded rows follows them, the next page starts when fewer than
    /// ``FeedPolicy/prefetchDistance`` rows remain below the last one, and the first one is the
    /// ``ScrollAnchor`` of later changes (and, with ``FeedPolicy/keepsReadingPosition``, the saved
    /// ``ReadingPosition``). Prefer it to ``rowDidAppear(_:)`` when the list can say what is visible
    /// (`indexPathsForVisibleRows`): a single row that appears is the bottom one when scrolling down.
    public func setVisibleRows(_ rows: Range<Int>, offset: Double = 0) {
        let first = min(max(rows.lowerBound, 0), loaded.record.rowCount - 1)
        guard first >= 0 else { return }
        let last = min(max(rows.upperBound - 1, first), loaded.record.rowCount - 1)
        followRows(around: first)
        reader.visible = VisibleRows(
            first: first, last: last, firstID: loadedID(ofRow: first), offset: offset.isFinite ? offset : 0,
            reportedAsRange: true)
        readingPositionMoved()
        prefetchIfNearBottom()
    }

    /// Where the reader is: the first row on screen, or nil before the app reported any.
    public var readingPosition: ReadingPosition? {
        guard let visible = reader.visible, let id = visible.firstID else { return nil }
        return ReadingPosition(itemID: id, row: visible.first, offset: visible.offset)
    }

    /// Every reading position saved in the cache, as it is saved: the hook to share the place with a
    /// server marker (Mastodon's `POST /api/v1/markers`). Saves come at most once a second while the
    /// reader scrolls, and when ``saveReadingPosition()`` is called. The stream ends when the last
    /// reference to the feed goes.
    public var readingPositions: AsyncStream<ReadingPosition> {
        let (stream, continuation) = AsyncStream.makeStream(of: ReadingPosition.self)
        let id = addPositionSubscriber(continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        return stream
    }

    /// Saves the reading position now (call it when the app goes to the background); it is restored
    /// when the feed opens with ``FeedPolicy/keepsReadingPosition``. A read-only store saves nothing.
    public func saveReadingPosition() throws {
        reader.saves.pending?.cancel()
        reader.saves.pending = nil
        guard let position = readingPosition, !queue.isReadOnly else { return }
        let saved = PageStore.SavedPosition(
            itemID: position.itemID, row: position.row, offset: position.offset, savedAt: clock.date())
        try writer.save(saved)
        reader.saves.lastAt = clock.now()
        reader.saves.lastSaved = position
        yieldSavedPosition(position)
    }

    /// Moves the reader to the item `itemID` (a server marker newer than the saved place): the next
    /// snapshot's ``FeedSnapshot/anchor`` says to scroll there, and the window is loaded around it.
    /// - Returns: False when the feed does not have the item; nothing changes then.
    @discardableResult
    public func moveReadingPosition(to itemID: String, offset: Double = 0) throws -> Bool {
        try syncWithFile()
        guard let row = try queue.read({ store in try store.row(ofItem: itemID, in: loaded.record) }) else {
            return false
        }
        followRows(around: row)
        let offset = offset.isFinite ? offset : 0
        reader.visible = VisibleRows(first: row, last: row, firstID: itemID, offset: offset, reportedAsRange: false)
        try saveReadingPosition()
        emit(anchor: ScrollAnchor(itemID: itemID, rowBefore: nil, rowAfter: row, offset: offset))
        return true
    }

    // MARK: - Internals

    /// Records that `row` appeared (see ``rowDidAppear(_:)``), unless the app reports whole ranges.
    func rowAppeared(_ row: Int) {
        if reader.visible?.reportedAsRange != true {
            reader.visible = VisibleRows(
                first: row, last: row, firstID: loadedID(ofRow: row), offset: 0, reportedAsRange: false)
            readingPositionMoved()
        } else if let current = reader.visible, row > current.last {
            reader.visible?.last = row
        }
    }

    /// Moves the window so that `row` is comfortably inside it.
    func followRows(around row: Int) {
        guard let range = loaded.window.rangeToLoad(around: row, rowCount: loaded.record.rowCount) else { return }
        do {
            try moveWindow(to: range)
            emit()
        } catch {
            recordError(FeedError(error))
        }
    }

    /// Starts the next page when the last row on screen is within the prefetch distance of the
    /// bottom, nothing is loading and the last one did not fail (that waits for ``retry()``).
    ///
    /// Called when rows appear and after every commit, so a next page that a refresh made obsolete
    /// (it replaced the bottom) starts again by itself while the reader is still at the bottom.
    func prefetchIfNearBottom() {
        guard let last = reader.visible?.last, loaded.record.rowCount - 1 - last < policy.prefetchDistance,
            activity.nextPage == .idle, !queue.isReadOnly
        else { return }
        startNextPage()
    }

    /// Follows the first row on screen through a change, and returns the anchor the snapshot
    /// carries when its row moved. By id: the row is found where the change put it. When the change
    /// removed it, the nearest row of the previous snapshot that is still there (below it first,
    /// then above) becomes the anchor, with its own rows before and after: the app keeps that one
    /// still.
    func followAnchor(through change: RowChange) -> ScrollAnchor? {
        guard var current = reader.visible, let id = current.firstID, loaded.record.rowCount > 0 else {
            if loaded.record.rowCount == 0 { reader.visible = nil }
            return nil
        }
        guard let (anchorID, before, after) = survivor(of: id, at: current.first) else {
            // Nothing of the old rows near it is left (a full replacement): no row to keep still, but
            // the reader is still as far down the list, which is what prefetching asks.
            current.first = min(current.first, loaded.record.rowCount - 1)
            current.last = min(max(current.last, current.first), loaded.record.rowCount - 1)
            current.firstID = loadedID(ofRow: current.first)
            reader.visible = current
            return nil
        }
        current.last = min(max(current.last + after - current.first, after), loaded.record.rowCount - 1)
        current.first = after
        current.firstID = anchorID
        reader.visible = current
        // The app keeps its anchor by id (SwiftUI's `scrollPosition(id:)`): a new row on top is news
        // even where it stands at the old row's place.
        guard after != before || anchorID != id else { return nil }
        return ScrollAnchor(itemID: anchorID, rowBefore: before, rowAfter: after, offset: current.offset)
    }

    /// The anchor row `id` (at `row` in the previous snapshot), or when it is gone the nearest row
    /// of the previous snapshot's window that is still in the feed: its id, old row and new row.
    ///
    /// The rows around it are looked for in the window first (no I/O), and only then in the cache,
    /// all in one read: a change that removed the anchor costs at most one transaction here.
    private func survivor(of id: String, at row: Int) -> (id: String, before: Int, after: Int)? {
        if let after = loadedRow(ofItem: id) { return (id, row, after) }
        let previous = snapshot.rows
        let inMemory = previous.loadedRange
        // A bounded search: the rows right around the place the reader was, nearest below first.
        let below = (row + 1)..<max(min(row + 1 + Self.survivorSearchRows, inMemory.upperBound), row + 1)
        let above = stride(from: row - 1, through: max(row - Self.survivorSearchRows, inMemory.lowerBound), by: -1)
        let candidates = ([row] + Array(below) + Array(above)).compactMap { old in
            previous.id(at: old).map { (row: old, id: $0) }
        }
        for candidate in candidates.dropFirst() {
            if let after = loadedRow(ofItem: candidate.id) { return (candidate.id, candidate.row, after) }
        }
        let ids = [id] + candidates.dropFirst().map(\.id)
        let record = loaded.record
        let found = try? queue.read { store -> (id: String, after: Int)? in
            // The rows as the snapshot shows them: a file that moved on (another store wrote again
            // since the write this list follows) would place the row where the snapshot has none.
            guard try store.feed(id: record.id)?.changeCount == record.changeCount else { return nil }
            let stored = try store.items(withIDs: ids, in: record)
            guard let nearest = ids.first(where: { stored[$0] != nil }), let item = stored[nearest] else { return nil }
            return (nearest, try store.rowIndex(ofPosition: item.position, in: record))
        }
        guard let found = found ?? nil else { return nil }
        let before = found.id == id ? row : candidates.first { $0.id == found.id }?.row ?? row
        return (found.id, before, found.after)
    }

    /// How far from a removed anchor row the next anchor is looked for.
    private static var survivorSearchRows: Int { 50 }

    /// The row of item `id` when it is in the window.
    private func loadedRow(ofItem id: String) -> Int? {
        loaded.window.rows.keys.firstIndex { $0.id == id }.map { loaded.window.start + $0 }
    }

    /// The id of `row` when it is in the window.
    func loadedID(ofRow row: Int) -> String? {
        let offset = row - loaded.window.start
        return loaded.window.rows.keys.indices.contains(offset) ? loaded.window.rows.keys[offset].id : nil
    }

    /// The first row on screen (or the offset into it) changed: saved at once when the last save is a second old, otherwise
    /// a second after it (so the last place of a scroll is always saved, and a scroll costs at most
    /// one write a second).
    private func readingPositionMoved() {
        guard policy.keepsReadingPosition, reader.saves.pending == nil, readingPosition != reader.saves.lastSaved
        else {
            return
        }
        guard let due = reader.saves.lastAt.map({ $0 + .seconds(1) }), due > clock.now() else {
            return saveReadingPositionQuietly()
        }
        reader.saves.pending = Task {
            try? await self.clock.sleep(due)
            guard !Task.isCancelled else { return }
            self.reader.saves.pending = nil
            self.saveReadingPositionQuietly()
        }
    }

    private func saveReadingPositionQuietly() {
        do {
            try saveReadingPosition()
        } catch {
            // The place is kept in memory and saved with the next move; the error shows in `pagedb`.
            recordError(FeedError(error))
        }
    }

    /// The row to open at: the saved item's row now, or its saved row when the item is gone.
    static func restoredRow(of record: FeedRecord, in store: PageStore) throws -> (row: Int, offset: Double)? {
        guard record.rowCount > 0, let saved = try store.readingPosition(of: record) else { return nil }
        let row = try store.row(ofItem: saved.itemID, in: record) ?? min(saved.row, record.rowCount - 1)
        return (row, saved.offset)
    }
}

/// The reading position's saves: at most one a second, the last one kept to skip saving it again.
struct PositionSaves {
    /// When the position was last saved.
    var lastAt: ContinuousClock.Instant?
    /// What was last saved.
    var lastSaved: ReadingPosition?
    /// The save waiting for the second to pass.
    var pending: Task<Void, Never>?
}
