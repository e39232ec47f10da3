package import Foundation

/// Writing pages: at the bottom (next page, seeding), at the top (refresh), and replacing a feed.
///
/// Each method updates the `FeedRecord` it is given and saves it, so the feed's counters and
/// cursors change in the same transaction as its items.
extension PageStore {
    /// Appends a page under the bottom row, dropping items whose id the feed already has.
    ///
    /// - Returns: The offsets in `items` of the items that were inserted, in order; their rows are
    ///   `feed.rowCount` (before the call) onwards.
    /// - Complexity: O(*k* log *n*) for *k* items on a feed of *n* rows.
    @discardableResult
    package func appendPage(_ items: [EncodedItem], page: PageWrite, to feed: inout FeedRecord) throws -> [Int] {
        let pageNo = try StoredArithmetic.sum(lastPageNo(of: feed) ?? -1, 1, "a page number")
        var position = feed.bottomPosition ?? -Self.positionStep
        try StoredArithmetic.checkRoom(from: position, steps: items.count, step: Self.positionStep)
        _ = try StoredArithmetic.count(feed.rowCount, plus: items.count)
        var inserted: [Int] = []
        inserted.reserveCapacity(items.count)
        for (offset, item) in items.enumerated() {
            if try insert(
                item, position: position + Self.positionStep, pageNo: pageNo, into: feed, ignoringDuplicate: true)
            {
                position += Self.positionStep
                inserted.append(offset)
            }
        }
        try insertPage(page, pageNo: pageNo, rowCount: inserted.count, into: feed)
        if let first = inserted.first {
            if feed.rowCount == 0 {
                // The feed was empty: this page is also its top.
                feed.topPosition = position - Int64(inserted.count - 1) * Self.positionStep
                feed.newestCursor = page.newerCursor
            }
            feed.bottomPosition = position
            feed.rowCount += inserted.count
            feed.hasSections = feed.hasSections || items[first...].contains { $0.section != nil }
        }
        feed.oldestCursor = page.olderCursor
        feed.endReached = page.olderCursor == nil
        feed.lastError = nil
        try save(feed)
        return inserted
    }

    /// Inserts new items above the top row, in the given order, as one new top page.
    ///
    /// The caller has checked that none of the ids is in the feed (the refresh merge decides that).
    /// - Complexity: O(*k* log *n*) for *k* items on a feed of *n* rows.
    package func prependPage(_ items: [EncodedItem], page: PageWrite, to feed: inout FeedRecord) throws {
        let pageNo = try StoredArithmetic.difference(firstPageNo(of: feed) ?? 1, 1, "a page number")
        let top = feed.topPosition ?? 0
        try StoredArithmetic.checkRoom(from: top, steps: items.count, step: -Self.positionStep)
        _ = try StoredArithmetic.count(feed.rowCount, plus: items.count)
        let count = Int64(items.count)
        for (offset, item) in items.enumerated() {
            let position = top - (count - Int64(offset)) * Self.positionStep
            _ = try insert(item, position: position, pageNo: pageNo, into: feed, ignoringDuplicate: false)
        }
        try insertPage(page, pageNo: pageNo, rowCount: items.count, into: feed)
        if !items.isEmpty {
            feed.topPosition = top - count * Self.positionStep
            feed.bottomPosition = feed.bottomPosition ?? (top - Self.positionStep)
            feed.rowCount += items.count
            feed.hasSections = feed.hasSections || items.contains { $0.section != nil }
        }
        feed.newestCursor = page.newerCursor
        feed.lastError = nil
        try save(feed)
    }

    /// Replaces the rows from the top down to `position` (inclusive) with `items`, in order, as one new
    /// top page: the general refresh, where the server reordered or dropped rows of the cached head.
    package func replaceHead(
        through position: Int64, with items: [EncodedItem], page: PageWrite, in feed: inout FeedRecord
    ) throws {
        let removed = try deleteRows(in: feed, from: feed.topPosition ?? position, through: position)
        feed.rowCount -= removed
        // Rows below the replaced head stay where they are; the new head goes right above them.
        feed.topPosition = try firstPosition(after: position, in: feed)
        if feed.topPosition == nil { feed.bottomPosition = nil }
        try prependPage(items, page: page, to: &feed)
    }

    /// Deletes every row, page and gap of the feed and writes `items` as its only page.
    package func replaceFeed(with items: [EncodedItem], page: PageWrite, in feed: inout FeedRecord) throws {
        for table in ["item", "page", "gap"] {
            try connection.withStatement("DELETE FROM \(table) WHERE feed_id = ?") { statement throws(StorageError) in
                try statement.bind(1, feed.id)
                try statement.step()
            }
        }
        feed.rowCount = 0
        feed.topPosition = nil
        feed.bottomPosition = nil
        feed.hasSections = false
        try appendPage(items, page: page, to: &feed)
        feed.newestCursor = page.newerCursor
        try save(feed)
    }

    /// Records a gap between the rows at `above` and `below`; `cursor` fills it from its top.
    package func addGap(
        above: Int64, below: Int64, cursor: String?, in feed: FeedRecord, at date: Date = Date()
    )
        throws(StorageError)
    {
        let sql = """
            INSERT INTO gap (feed_id, above_position, below_position, cursor, created_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (feed_id, above_position) DO UPDATE SET below_position = excluded.below_position,
            cursor = excluded.cursor, created_at = excluded.created_at
            """
        try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, above)
            try statement.bind(3, below)
            try statement.bind(4, cursor)
            try statement.bind(5, date.millisecondsSince1970)
            try statement.step()
        }
    }

    /// Removes the gap whose upper row is at `above`.
    package func removeGap(above: Int64, in feed: FeedRecord) throws(StorageError) {
        try connection.withStatement("DELETE FROM gap WHERE feed_id = ? AND above_position = ?") {
            statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, above)
            try statement.step()
        }
    }

    // MARK: - Rows

    /// Inserts one row; with `ignoringDuplicate`, an id already in the feed is skipped.
    /// - Returns: Whether the row was inserted.
    func insert(
        _ item: EncodedItem, position: Int64, pageNo: Int64, into feed: FeedRecord, ignoringDuplicate: Bool
    )
        throws(StorageError) -> Bool
    {
        let sql =
            ignoringDuplicate
            ? """
            INSERT INTO item (feed_id, item_id, position, page_no, section, payload) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (feed_id, item_id) DO NOTHING
            """
            : "INSERT INTO item (feed_id, item_id, position, page_no, section, payload) VALUES (?, ?, ?, ?, ?, ?)"
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, item.itemID)
            try statement.bind(3, position)
            try statement.bind(4, pageNo)
            try statement.bind(5, item.section)
            try statement.bind(6, item.payload, asText: textPayloads)
            try statement.step()
            return connection.changes > 0
        }
    }

    /// Replaces the payload and section of the row with `itemID`.
    /// - Returns: Whether the feed has such a row.
    @discardableResult
    package func updateItem(_ item: EncodedItem, in feed: inout FeedRecord) throws -> Bool {
        let updated = try connection.withStatement(
            "UPDATE item SET payload = ?, section = ? WHERE feed_id = ? AND item_id = ?"
        ) { statement throws(StorageError) in
            try statement.bind(1, item.payload, asText: textPayloads)
            try statement.bind(2, item.section)
            try statement.bind(3, feed.id)
            try statement.bind(4, item.itemID)
            try statement.step()
            return connection.changes > 0
        }
        if updated, item.section != nil, !feed.hasSections {
            feed.hasSections = true
            try save(feed)
        }
        return updated
    }

    /// Replaces the payload and section of the row at `position`, whose id is `item.itemID`: the refresh
    /// merge knows where each reloaded row is, and the position index reaches it without a look-up by id.
    package func updateItem(_ item: EncodedItem, at position: Int64, in feed: inout FeedRecord) throws {
        try connection.withStatement(
            "UPDATE item SET payload = ?, section = ? WHERE feed_id = ? AND position = ? AND item_id = ?"
        ) { statement throws(StorageError) in
            try statement.bind(1, item.payload, asText: textPayloads)
            try statement.bind(2, item.section)
            try statement.bind(3, feed.id)
            try statement.bind(4, position)
            try statement.bind(5, item.itemID)
            try statement.step()
        }
        if item.section != nil, !feed.hasSections { feed.hasSections = true }
    }

    /// Deletes the rows with positions in `from...through` and keeps the pages' row counts exact.
    /// - Returns: How many rows were deleted.
    func deleteRows(in feed: FeedRecord, from: Int64, through: Int64) throws(StorageError) -> Int {
        try connection.withStatement(
            """
            UPDATE page SET row_count = row_count - (SELECT count(*) FROM item WHERE item.feed_id = page.feed_id
            AND item.page_no = page.page_no AND item.position BETWEEN ?2 AND ?3) WHERE feed_id = ?1
            """
        ) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, from)
            try statement.bind(3, through)
            try statement.step()
        }
        // A gap that touches a deleted row no longer has two rows to sit between.
        try connection.withStatement(
            """
            DELETE FROM gap WHERE feed_id = ?1 AND (above_position BETWEEN ?2 AND ?3 OR below_position BETWEEN ?2 AND ?3)
            """
        ) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, from)
            try statement.bind(3, through)
            try statement.step()
        }
        return try connection.withStatement("DELETE FROM item WHERE feed_id = ? AND position BETWEEN ? AND ?") {
            statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, from)
            try statement.bind(3, through)
            try statement.step()
            return connection.changes
        }
    }

    func insertPage(_ page: PageWrite, pageNo: Int64, rowCount: Int, into feed: FeedRecord) throws(StorageError) {
        let sql = """
            INSERT INTO page (feed_id, page_no, request, request_cursor, older_cursor, newer_cursor, fetched_at,
            row_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, pageNo)
            try statement.bind(3, page.request.rawValue)
            try statement.bind(4, page.requestCursor)
            try statement.bind(5, page.olderCursor)
            try statement.bind(6, page.newerCursor)
            try statement.bind(7, page.fetchedAt.millisecondsSince1970)
            try statement.bind(8, rowCount)
            try statement.step()
        }
    }
}
