import Foundation

/// Seeding a large fixture into an empty feed: rows are staged in a temporary table, then written
/// in id order, and the position index is built after them.
///
/// Why: the id index (`item`'s primary key) is keyed by the app's ids, which are in no order.
/// Millions of them inserted in file order land on random leaves of an index far larger than
/// SQLite's page cache, so nearly every insert reads one leaf and spills another to the log (half of
/// a 10-million-line seed was `pread` and `pwrite`). Written in id order, the table and the id
/// index both grow at their ends; the position index, which file order kept sequential, would then
/// be the random one, so it is dropped and rebuilt by one sort, as `CREATE INDEX` does. All of it
/// happens in the caller's transaction: a failure rolls the index back with the rows.
extension PageStore {
    /// Fewer items than this are seeded row by row: their id index pages stay in the page cache.
    package static let bulkSeedMinimum = 50_000

    private static let stageGroup = 25
    private static let stageOneSQL = stageSQL(rows: 1)
    private static let stageGroupSQL = stageSQL(rows: stageGroup)

    private static func stageSQL(rows: Int) -> String {
        "INSERT INTO temp.seed_stage (item_id, position, page_no, section, payload, offset) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    /// A bulk seed in progress (see ``beginBulkSeed(into:)``).
    package struct BulkSeed {
        /// The page number of the last staged page.
        fileprivate var pageNo: Int64
        /// The position of the last staged row.
        fileprivate var position: Int64
        /// Rows staged so far.
        package fileprivate(set) var staged = 0
        /// The position index's own `CREATE` statement, run again once the rows are written.
        fileprivate let positionIndexSQL: String
    }

    /// A line of the seed that repeats an id of an earlier line.
    package struct BulkSeedRepeat: Sendable, Equatable {
        /// The repeated id.
        package var itemID: String
        /// The byte offset the caller staged the later line with.
        package var offset: Int
    }

    /// Whether seeding `items` items into `feed` should take the bulk path: the feed is empty (no id
    /// of the fixture can already be there), there are enough items for the id index to outgrow the
    /// page cache, and rebuilding the position index (every feed's rows) costs no more than the seed.
    package func prefersBulkSeed(of items: Int, into feed: FeedRecord) throws(StorageError) -> Bool {
        guard feed.rowCount == 0, items >= Self.bulkSeedMinimum else { return false }
        let rows = try connection.int64("SELECT coalesce(sum(row_count), 0) FROM feed") ?? 0
        return Int64(items) >= rows
    }

    /// Starts a bulk seed into the empty `feed`; run it, the stages and ``finishBulkSeed(_:feed:)`` in
    /// one transaction.
    package func beginBulkSeed(into feed: FeedRecord) throws(StorageError) -> BulkSeed {
        // The index is re-created from its own schema text, so its definition stays the one the
        // migrations wrote, byte for byte (only its place in sqlite_schema moves to the end).
        let indexSQL = try connection.row(
            "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = 'item_by_position'"
        ) { statement in statement.string(0) }
        guard let indexSQL else {
            throw StorageError(.corrupt, message: "The cache file has no item_by_position index")
        }
        try connection.execute(
            """
            DROP TABLE IF EXISTS temp.seed_stage;
            CREATE TEMP TABLE seed_stage (
                item_id TEXT NOT NULL, position INTEGER NOT NULL, page_no INTEGER NOT NULL, section TEXT,
                payload ANY NOT NULL, offset INTEGER NOT NULL
            ) STRICT;
            DROP INDEX item_by_position
            """)
        return BulkSeed(
            pageNo: try lastPageNo(of: feed) ?? -1, position: feed.bottomPosition ?? -Self.positionStep,
            positionIndexSQL: indexSQL)
    }

    /// Stages one page below the rows staged so far and stores its page row, as `appendPage` would
    /// (every item is new: the feed was empty). `offsets` are the items' byte offsets in the fixture.
    package func stageBulkSeed(
        _ items: [EncodedItem], offsets: [Int], page: PageWrite, _ bulk: inout BulkSeed, feed: inout FeedRecord
    ) throws(StorageError) {
        try Self.namingTemporaryFolder { () throws(StorageError) in
            try stage(items, offsets: offsets, page: page, &bulk, feed: &feed)
        }
    }

    private func stage(
        _ items: [EncodedItem], offsets: [Int], page: PageWrite, _ bulk: inout BulkSeed, feed: inout FeedRecord
    ) throws(StorageError) {
        bulk.pageNo = try Self.sum(bulk.pageNo, 1)
        let first = try Self.position(bulk.position, movedBy: 1)
        // Rows go in by groups of `stageGroup` in one statement, the rest one by one: a statement's
        // look-up, step and reset cost as much as a staged row does. Bound by hand, with no array of
        // arguments: this runs for every row of the largest seeds.
        var index = items.startIndex
        while index < items.endIndex {
            let count = items.endIndex - index >= Self.stageGroup ? Self.stageGroup : 1
            try connection.withStatement(count == 1 ? Self.stageOneSQL : Self.stageGroupSQL) {
                statement throws(StorageError) in
                for row in 0..<count {
                    let item = items[index + row]
                    let column = Int32(row * 6)
                    bulk.position = try Self.position(bulk.position, movedBy: 1)
                    try statement.bind(column + 1, item.itemID)
                    try statement.bind(column + 2, bulk.position)
                    try statement.bind(column + 3, bulk.pageNo)
                    try statement.bind(column + 4, item.section)
                    try statement.bind(column + 5, item.payload, asText: textPayloads)
                    try statement.bind(column + 6, index + row < offsets.count ? offsets[index + row] : 0)
                }
                try statement.step()
            }
            index += count
        }
        try insertPage(page, pageNo: bulk.pageNo, rowCount: items.count, into: feed)
        if !items.isEmpty {
            if feed.rowCount == 0 {
                feed.topPosition = first
                feed.newestCursor = page.newerCursor
            }
            feed.bottomPosition = bulk.position
            feed.rowCount = try Self.count(feed.rowCount, adding: items.count)
            feed.hasSections = feed.hasSections || items.contains { $0.section != nil }
            bulk.staged += items.count
        }
        feed.oldestCursor = page.olderCursor
        feed.endReached = page.olderCursor == nil
        feed.lastError = nil
    }

    /// Writes the staged rows in id order, rebuilds the position index and saves `feed`.
    /// - Returns: The first line (by offset) that repeats an earlier line's id, when there is one;
    ///   nothing is then complete, and the caller must roll the transaction back.
    package func finishBulkSeed(_ bulk: inout BulkSeed, feed: inout FeedRecord) throws(StorageError) -> BulkSeedRepeat?
    {
        try Self.namingTemporaryFolder { () throws(StorageError) in
            try withSortHelperThread { () throws(StorageError) in try finish(&bulk, feed: &feed) }
        }
    }

    /// Runs `body` with one helper thread for SQLite's sorts (`PRAGMA threads = 1`), then gives the
    /// connection its own setting back.
    ///
    /// Why: the sorted insert and the index rebuild are external sorts of about 1.2 GB and 160 MB for
    /// 10 million rows; with a helper, one thread sorts and writes a run to its temporary file while the
    /// other reads the next, and merges overlap the same way. Measured on the 10M-line seed (three
    /// interleaved pairs, rollback journal): 34.2 / 33.3 / 33.0 s without, 29.5 / 29.3 / 26.8 s with, at
    /// the same peak (44.5 MiB), using about 1.2 cores. (On 3M lines, earlier, it measured no faster.)
    private func withSortHelperThread<T>(_ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        let before = try connection.int64("PRAGMA threads") ?? 0
        try connection.execute("PRAGMA threads = 1")
        defer { try? connection.execute("PRAGMA threads = \(before)") }
        return try body()
    }

    /// A storage-full error of a bulk seed names SQLite's temporary folder: the staged rows and the
    /// sorts live there, so SQLite's own "database or disk is full" sends a reader to the cache
    /// file's disk, which may have room to spare.
    private static func namingTemporaryFolder<T>(_ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        do throws(StorageError) {
            return try body()
        } catch let error where error.kind == .storageFull {
            throw StorageError(
                .storageFull,
                message: "\(error.message): a seed of this size stages its rows and sorts them in SQLite's temporary "
                    + "folder (SQLITE_TMPDIR, TMPDIR, else /var/tmp, /tmp), which needs free space of about twice "
                    + "the rows' size besides the cache file's own disk; nothing was written",
                resultCode: error.resultCode, extendedResultCode: error.extendedResultCode, sql: error.sql)
        }
    }

    private func finish(_ bulk: inout BulkSeed, feed: inout FeedRecord) throws(StorageError) -> BulkSeedRepeat? {
        // The sort runs in runs of the page cache's size (with a helper thread, see
        // `withSortHelperThread`): a larger cache_size measured slower (6 MB, and 16 MB on 3M lines)
        // with a higher peak.
        // `WHERE true` keeps SQLite from reading ON CONFLICT as a join constraint.
        let insert = """
            INSERT INTO item (feed_id, item_id, position, page_no, section, payload, flags)
            SELECT ?, item_id, position, page_no, section, payload, ? FROM temp.seed_stage WHERE true ORDER BY item_id
            ON CONFLICT (feed_id, item_id) DO NOTHING
            """
        let flags = feed.sharedType == nil ? 0 : Self.sharedFlag
        if try connection.run(insert, feed.id, flags) != bulk.staged {
            // Only on failure: the earliest line whose id an earlier line had.
            let firstRepeat = """
                SELECT item_id, offset FROM (
                    SELECT item_id, offset, position,
                        row_number() OVER (PARTITION BY item_id ORDER BY position) AS n
                    FROM temp.seed_stage)
                WHERE n = 2 ORDER BY position LIMIT 1
                """
            let repeated = try connection.row(firstRepeat) { statement in
                BulkSeedRepeat(itemID: statement.string(0) ?? "", offset: statement.int(1))
            }
            guard let repeated else {
                // No line repeats another: the feed had some of the ids although its row count said
                // it was empty (the bulk path's premise), so the cache is at fault, not the fixture.
                throw StorageError(
                    .corrupt,
                    message: "The feed \(feed.key.debugDescription) has rows its row count leaves out (ids of the "
                        + "fixture were there already); nothing was written. `pagedb verify` names the damage")
            }
            return repeated
        }
        try connection.execute(bulk.positionIndexSQL + "; DROP TABLE temp.seed_stage")
        // The rows went in by one statement, past the row primitives that index them.
        _ = try indexAllRows(of: feed)
        try save(&feed)
        return nil
    }
}
