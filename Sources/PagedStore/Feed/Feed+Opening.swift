import Foundation

/// Opening a feed: its row, its first screen, and what the file holds that this version of the app
/// cannot show.
extension Feed {
    /// What opening a feed reads: its row, the saved reading row, where the window starts, the
    /// window's rows, the sections and the gaps.
    typealias OpenedFeed = (
        record: FeedRecord, restored: (row: Int, offset: Double)?, windowStart: Int, rows: [StoredItem],
        layout: SectionLayout, gaps: [(record: GapRecord, afterRow: Int)]
    )

    /// Opens the feed with `key`: one read transaction for its row and first screen when it exists
    /// with this policy (the usual open); a write only when the feed is new, its policy changed (a
    /// new ``FeedPolicy/cacheVersion`` empties it first, as a first launch), or its first screen
    /// holds rows the codec cannot decode (removed, and the screen read again). A read-only store's
    /// feed never writes here (``openWithoutWriting(policy:queue:key:)``).
    /// - Returns: What was read, the first screen decoded, the rows removed, and the pending edits
    ///   dropped with them or with the old cache version's rows.
    static func openFeed(
        policy: FeedPolicy, writer: FeedWriter<Item>
    ) throws -> (
        opened: OpenedFeed, rows: LoadedRows<Item>, removed: [UndecodableRow], droppedEdits: [MalformedPendingEdit]
    ) {
        let key = writer.key
        if writer.queue.isReadOnly {
            // Rows that do not decode stay in the file: the window stops above them.
            let opened = try openWithoutWriting(policy: policy, queue: writer.queue, key: key)
            return (opened, LoadedRows.decoding(opened.rows, codec: writer.codec).rows, [], [])
        }
        let (read, lastOpened) = try writer.queue.read { store -> (OpenedFeed?, Date?) in
            guard let record = try store.feed(key: key), PolicyJSON.shared.records(policy, as: record.policy)
            else { return (nil, nil) }
            let declared = writer.declarations(over: record, in: store)
            guard record.sharedType == declared.shared,
                record.searchFields == (try PageStore.searchFieldsText(declared.fields))
            else { return (nil, nil) }
            return (try open(record, in: store, policy: policy), try store.openedAt(record))
        }
        var dropped: [MalformedPendingEdit] = []
        var opened: OpenedFeed
        if let read {
            opened = read
        } else {
            (opened, dropped) = try writer.record(policy) { store, feed in try open(feed, in: store, policy: policy) }
        }
        try writer.recordOpened(lastRecorded: lastOpened)
        var decoded = LoadedRows.decoding(opened.rows, codec: writer.codec)
        var removed: [UndecodableRow] = []
        while !decoded.undecodable.isEmpty {
            let removal = try writer.remove(undecodable: decoded.undecodable, over: nil) { store, feed in
                try open(feed, in: store, policy: policy)
            }
            // Rows no longer where they were read: another writer changed the feed, and the screen
            // read again in the same transaction holds what is there now.
            opened = removal.read
            removed += removal.removed.map(\.row)
            dropped += removal.droppedEdits
            decoded = LoadedRows.decoding(opened.rows, codec: writer.codec)
            if removal.removed.isEmpty { break }
        }
        return (opened, decoded.rows, removed, dropped)
    }

    /// Reads what opening `record` needs, in the caller's transaction: a first screen, from the top,
    /// or around the reader's saved place (a quarter of it above the place, for scrolling up).
    static func open(_ record: FeedRecord, in store: PageStore, policy: FeedPolicy) throws -> OpenedFeed {
        let restored = policy.keepsReadingPosition ? try restoredRow(of: record, in: store) : nil
        let limit = min(policy.windowSize, policy.firstScreenRows)
        let start = restored.map { max(min($0.row - limit / 4, record.rowCount - limit), 0) } ?? 0
        let rows = try store.window(of: record, from: start == 0 ? .top : .row(start), limit: limit)
        return (record, restored, start, rows, try layout(of: record, in: store), try gaps(of: record, in: store))
    }
}
