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
    /// holds rows the codec cannot decode (removed, and the screen read again).
    /// - Returns: What was read, the first screen decoded, and the rows removed.
    static func openFeed(
        key: String, policy: FeedPolicy, codec: ItemCodec<Item>, queue: DatabaseQueue
    ) throws -> (opened: OpenedFeed, rows: LoadedRows<Item>, removed: [UndecodableRow]) {
        var opened =
            try queue.read { store -> OpenedFeed? in
                guard let record = try store.feed(key: key), PolicyJSON.shared.records(policy, as: record.policy)
                else { return nil }
                return try open(record, in: store, policy: policy)
            }
            ?? queue.write { store in
                var feed = try store.ensureFeed(key: key)
                if let recorded = PolicyJSON.shared.cacheVersion(recordedIn: feed.policy),
                    recorded != policy.cacheVersion
                {
                    try store.clearFeed(&feed)
                }
                feed.policy = PolicyJSON.shared.text(of: policy)
                try store.save(&feed)
                return try open(feed, in: store, policy: policy)
            }
        var decoded = LoadedRows.decoding(opened.rows, codec: codec)
        var removed: [UndecodableRow] = []
        while !decoded.undecodable.isEmpty {
            let undecodable = decoded.undecodable
            let (reopened, deleted) = try queue.write { store in
                var feed = try store.ensureFeed(key: key)
                let deleted = try removeRows(undecodable, from: &feed, in: store)
                return (try open(feed, in: store, policy: policy), deleted)
            }
            // Rows no longer where they were read: another writer changed the feed, and the screen
            // read again in the same transaction holds what is there now.
            opened = reopened
            removed += deleted.map(\.row)
            decoded = LoadedRows.decoding(opened.rows, codec: codec)
            if deleted.isEmpty { break }
        }
        return (opened, decoded.rows, removed)
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
