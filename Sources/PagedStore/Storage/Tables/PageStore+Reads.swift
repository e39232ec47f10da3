import Foundation

/// Where a window of rows starts.
package enum WindowStart: Sendable, Equatable {
    /// From the top row.
    case top
    /// From the row right below the row at this position (keyset: no OFFSET scan).
    case after(position: Int64)
    /// Ending at the row right above the row at this position (keyset, read upwards).
    case before(position: Int64)
    /// From this row index (an OFFSET scan: O(row); use keyset starts when scrolling).
    case row(Int)
}

/// Reading a feed: windows of rows by keyset, look-ups by id, counts, pages, gaps and sections.
extension PageStore {
    private static let itemColumns = "item_id, position, section, payload"

    // The window reads' SQL, built once: interpolating it on every read cost an allocation and a
    // longer key to hash in the statement cache, on the path every scroll step and first screen takes.
    private static let topSQL = "SELECT \(itemColumns) FROM item WHERE feed_id = ? ORDER BY position LIMIT ?"
    private static let afterSQL =
        "SELECT \(itemColumns) FROM item WHERE feed_id = ? AND position > ? ORDER BY position LIMIT ?"
    private static let beforeSQL =
        "SELECT \(itemColumns) FROM item WHERE feed_id = ? AND position < ? ORDER BY position DESC LIMIT ?"
    private static let rowSQL =
        "SELECT \(itemColumns) FROM item WHERE feed_id = ? ORDER BY position LIMIT ? OFFSET ?"
    private static let headSQL =
        "SELECT \(itemColumns) FROM item WHERE feed_id = ? AND position <= ? ORDER BY position LIMIT ?"

    /// Up to `limit` rows in display order, starting at `start`.
    ///
    /// - Complexity: O(log *n* + `limit`) for keyset starts; `.row(r)` adds O(*r*).
    package func window(
        of feed: FeedRecord, from start: WindowStart, limit: Int
    ) throws(StorageError)
        -> [StoredItem]
    {
        switch start {
        case .top:
            return try readItems(Self.topSQL, feed.id, Int64(limit), nil, limit: limit)
        case .after(let position):
            return try readItems(Self.afterSQL, feed.id, position, Int64(limit), limit: limit)
        case .before(let position):
            let rows = try readItems(Self.beforeSQL, feed.id, position, Int64(limit), limit: limit)
            return rows.reversed()
        case .row(let row):
            return try readItems(Self.rowSQL, feed.id, Int64(limit), Int64(row), limit: limit)
        }
    }

    private static let topByKeySQL = """
        SELECT \(itemColumns) FROM item WHERE feed_id = (SELECT id FROM feed WHERE key = ?) ORDER BY position LIMIT ?
        """

    /// The top `limit` rows of the feed with `key` (none for an unknown or empty feed), in one
    /// statement: a first screen for a caller that has only the key.
    ///
    /// The feed's id is looked up inside the query, so a cold connection prepares one statement
    /// instead of two and a warm one steps one; being a single statement it needs no explicit read
    /// transaction (``DatabaseQueue/readStatement(_:)``).
    package func topRows(ofFeedKey key: String, limit: Int) throws(StorageError) -> [StoredItem] {
        // Bound by hand and sized up front, as `readItems` is: an app's first screen reads here.
        try connection.withStatement(Self.topByKeySQL) { statement throws(StorageError) in
            try statement.bind(1, key)
            try statement.bind(2, Int64(limit))
            var rows: [StoredItem] = []
            rows.reserveCapacity(min(max(limit, 0), 1024))
            while try statement.step() { rows.append(Self.storedItem(statement)) }
            return rows
        }
    }

    /// The rows from the top down to the row at `position` (inclusive), at most `limit` of them.
    package func head(of feed: FeedRecord, through position: Int64, limit: Int) throws(StorageError) -> [StoredItem] {
        try readItems(Self.headSQL, feed.id, position, Int64(limit), limit: limit)
    }

    /// The stored rows for the ids that the feed has, keyed by id.
    ///
    /// Several ids are looked up by one statement for each ``idsPerLookup`` of them (its list
    /// padded with NULL, which matches nothing): a page's ids cost one statement rather than one
    /// each, whose binding, stepping and resetting cost more than the lookups themselves.
    /// - Complexity: O(*k* log *n*) for *k* ids.
    package func items(
        withIDs ids: some Sequence<String>, in feed: FeedRecord
    ) throws(StorageError)
        -> [String: StoredItem]
    {
        var found: [String: StoredItem] = [:]
        let ids = Array(ids)
        if ids.count == 1 {
            let sql = "SELECT \(Self.itemColumns) FROM item WHERE feed_id = ? AND item_id = ?"
            try connection.withStatement(sql) { statement throws(StorageError) in
                try statement.bind(1, feed.id)
                try statement.bind(2, ids[0])
                if try statement.step() { found[ids[0]] = Self.storedItem(statement) }
            }
            return found
        }
        for start in stride(from: 0, to: ids.count, by: Self.idsPerLookup) {
            try readItems(withIDs: ids[start..<min(start + Self.idsPerLookup, ids.count)], in: feed, into: &found)
        }
        return found
    }

    /// How many keys one statement looks up by an `IN` list (``items(withIDs:in:)``, a search's
    /// first documents): the list is padded with NULL, so one prepared statement serves any count.
    static let idsPerLookup = 32

    /// The `IN` list of ``idsPerLookup`` parameters numbered from `first`: `(?2, ?3, …)`.
    static func inListOfLookup(from first: Int) -> String {
        "(" + (first..<(first + idsPerLookup)).map { "?\($0)" }.joined(separator: ", ") + ")"
    }

    private static let itemsWithIDsSQL =
        "SELECT \(itemColumns) FROM item WHERE feed_id = ?1 AND item_id IN \(inListOfLookup(from: 2))"

    /// Adds to `found` the rows of the feed with ids in `ids`, at most ``idsPerLookup`` of them.
    private func readItems(
        withIDs ids: ArraySlice<String>, in feed: FeedRecord, into found: inout [String: StoredItem]
    ) throws(StorageError) {
        try connection.withStatement(Self.itemsWithIDsSQL) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            for slot in 0..<Self.idsPerLookup {
                try statement.bind(Int32(slot + 2), slot < ids.count ? ids[ids.startIndex + slot] : nil)
            }
            while try statement.step() {
                let item = Self.storedItem(statement)
                found[item.itemID] = item
            }
        }
    }

    /// The position of row `row`, or nil past the end.
    package func position(ofRow row: Int, in feed: FeedRecord) throws(StorageError) -> Int64? {
        try connection.integer(
            "SELECT position FROM item WHERE feed_id = ? ORDER BY position LIMIT 1 OFFSET ?", feed.id, row)
    }

    /// The position of the first row below `position`, or nil when it is the bottom row.
    package func firstPosition(after position: Int64, in feed: FeedRecord) throws(StorageError) -> Int64? {
        try connection.integer(
            "SELECT position FROM item WHERE feed_id = ? AND position > ? ORDER BY position LIMIT 1", feed.id, position)
    }

    /// The position of the first row at `position` or below it, or nil when there is none.
    package func firstPosition(from position: Int64, in feed: FeedRecord) throws(StorageError) -> Int64? {
        try connection.integer(
            "SELECT position FROM item WHERE feed_id = ? AND position >= ? ORDER BY position LIMIT 1", feed.id, position
        )
    }

    /// The feed's pages in display order.
    package func pages(of feed: FeedRecord) throws(StorageError) -> [PageRecord] {
        let sql = "SELECT \(Self.pageColumns) FROM page WHERE feed_id = ? ORDER BY page_no"
        return try connection.rows(sql, feed.id, row: Self.pageRecord)
    }

    /// The columns ``pageRecord(_:)`` reads, in its order.
    static let pageColumns = "page_no, request, request_cursor, older_cursor, newer_cursor, fetched_at, row_count"

    /// A page row, selected as ``pageColumns``.
    static func pageRecord(_ statement: Statement) -> PageRecord {
        PageRecord(
            pageNo: statement.int64(0), request: PageRequestKind(rawValue: statement.string(1) ?? "") ?? .first,
            requestCursor: statement.string(2), olderCursor: statement.string(3), newerCursor: statement.string(4),
            fetchedAt: Date(millisecondsSince1970: statement.int64(5)), rowCount: max(statement.int(6), 0))
    }

    /// The feed's gap markers, top first.
    package func gaps(of feed: FeedRecord) throws(StorageError) -> [GapRecord] {
        let sql = """
            SELECT id, above_position, cursor, created_at, newer_cursor, unfillable FROM gap WHERE feed_id = ?
            ORDER BY above_position
            """
        return try connection.rows(sql, feed.id) { statement in
            GapRecord(
                id: statement.int64(0), abovePosition: statement.int64(1), cursor: statement.string(2),
                createdAt: Date(millisecondsSince1970: statement.int64(3)), newerCursor: statement.string(4),
                unfillable: statement.int64(5) != 0)
        }
    }

    /// The feed's sections: each maximal run of rows with the same section key, top first, with its row count.
    /// - Complexity: O(*n*); the engine asks only for feeds that have section keys.
    package func sectionRuns(of feed: FeedRecord) throws(StorageError) -> [(key: String?, rowCount: Int)] {
        // Gaps and islands: a row starts a run where its key differs from the row above it.
        let sql = """
            SELECT section, count(*) FROM (
                SELECT section, sum(starts) OVER (ORDER BY position) AS run FROM (
                    SELECT section, position,
                    CASE WHEN section IS lag(section) OVER (ORDER BY position) THEN 0 ELSE 1 END AS starts
                    FROM item WHERE feed_id = ?))
            GROUP BY run ORDER BY run
            """
        return try connection.rows(sql, feed.id) { statement in (statement.string(0), statement.int(1)) }
    }

    /// The page of the row at `position`, or nil when no row is there.
    package func pageNo(atPosition position: Int64, in feed: FeedRecord) throws(StorageError) -> Int64? {
        try connection.integer("SELECT page_no FROM item WHERE feed_id = ? AND position = ?", feed.id, position)
    }

    /// The id of the feed's bottom row, or nil when it has no rows.
    package func bottomRowID(of feed: FeedRecord) throws(StorageError) -> String? {
        guard let position = feed.bottomPosition else { return nil }
        let sql = "SELECT item_id FROM item WHERE feed_id = ? AND position = ?"
        return try connection.row(sql, feed.id, position) { statement in statement.string(0) }
    }

    /// The page number of the bottom page, or nil when the feed has no pages.
    func lastPageNo(of feed: FeedRecord) throws(StorageError) -> Int64? {
        try connection.integer("SELECT max(page_no) FROM page WHERE feed_id = ?", feed.id)
    }

    /// The page number of the top page, or nil when the feed has no pages.
    func firstPageNo(of feed: FeedRecord) throws(StorageError) -> Int64? {
        try connection.integer("SELECT min(page_no) FROM page WHERE feed_id = ?", feed.id)
    }

    // MARK: - Helpers

    /// Runs a row query bound with the feed's id and one or two integers (`second` nil: one).
    /// The rows array is sized for `limit` up front: growing it by doubling cost several copies per read.
    /// Bound one by one, with no array of arguments: every scroll step and first screen reads here.
    private func readItems(
        _ sql: String, _ feedID: Int64, _ first: Int64, _ second: Int64?, limit: Int
    ) throws(StorageError) -> [StoredItem] {
        try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feedID)
            try statement.bind(2, first)
            if let second { try statement.bind(3, second) }
            var rows: [StoredItem] = []
            rows.reserveCapacity(min(max(limit, 0), 1024))
            while try statement.step() { rows.append(Self.storedItem(statement)) }
            return rows
        }
    }

    static func storedItem(_ statement: Statement) -> StoredItem {
        StoredItem(
            itemID: statement.string(0) ?? "", position: statement.int64(1), section: statement.string(2),
            payload: statement.data(3) ?? Data())
    }
}
