import Foundation

/// Writing pages: at the bottom (next page, seeding), at the top (refresh), and replacing a feed.
///
/// Each method updates the `FeedRecord` it is given and saves it, so the feed's counters and
/// cursors change in the same transaction as its items.
extension PageStore {
    /// Appends a page under the bottom row, dropping items whose id the feed already has.
    ///
    /// With `storingEmptyPage` false, a page that adds no row (every item known, or none) and goes on
    /// (it has an older cursor) stores no page row: the feed's older cursor, and its bottom page's,
    /// move on to the page's (see ``advanceOlderCursor(to:in:)``). The page that ends the feed is
    /// always stored, with no rows if it adds none: the file keeps the answer that ended the feed, and
    /// the page above keeps the older cursor its server sent, which the ending page was asked with.
    ///
    /// - Returns: The rows inserted, in order: which of `items` each holds and its position. Their
    ///   rows are `feed.rowCount` (before the call) onwards.
    /// - Complexity: O(*k* log *n*) for *k* items on a feed of *n* rows.
    @discardableResult
    package func appendPage(
        _ items: [EncodedItem], page: PageWrite, to feed: inout FeedRecord, storingEmptyPage: Bool = true
    ) throws -> [WrittenRow] {
        let lastPage = try lastPageNo(of: feed)
        let pageNo = try Self.sum(lastPage ?? -1, 1)
        let belowTheRemovedRows = try placeBelowTheRemovedRows(of: feed)
        var position = belowTheRemovedRows ?? feed.bottomPosition ?? -Self.positionStep
        var inserted: [WrittenRow] = []
        inserted.reserveCapacity(items.count)
        for (offset, item) in items.enumerated() {
            let next = try Self.position(position, movedBy: 1)
            if try insert(item, position: next, pageNo: pageNo, into: feed, ignoringDuplicate: true) {
                position = next
                inserted.append(WrittenRow(offset: offset, position: next))
            }
        }
        if belowTheRemovedRows != nil, let first = inserted.first {
            try extendListEnd(named: feed, to: items[first.offset].itemID, listing: items)
        }
        if inserted.isEmpty, !storingEmptyPage, page.olderCursor != nil {
            try advanceOlderCursor(to: page.olderCursor, in: &feed)
            return []
        }
        // A feed without rows keeps its one emptied page (``EmptyPageRule``), which this page ends
        // being alone: the rule then hands its start, the feed's newer cursor, on to this page.
        if feed.rowCount == 0, lastPage != nil { try notePagesOfAFeedWithoutRows(feed) }
        try insertPage(page, pageNo: pageNo, rowCount: inserted.count, into: feed)
        if let first = inserted.first {
            if feed.rowCount == 0 {
                // The feed was empty: this page is also its top, asked from the top unless an emptied
                // page said where the top is.
                feed.topPosition = first.position
                if lastPage == nil { feed.newestCursor = page.newerCursor }
            }
            feed.bottomPosition = position
            feed.rowCount = try Self.count(feed.rowCount, adding: inserted.count)
            feed.hasSections = feed.hasSections || items[first.offset...].contains { $0.section != nil }
        }
        feed.oldestCursor = page.olderCursor
        feed.endReached = page.olderCursor == nil
        feed.lastError = nil
        try save(&feed)
        return inserted
    }

    /// Moves the feed's older-side cursor on without adding rows: the server answered a next page
    /// with items the feed already has (a page-numbered list that shifted down), which is progress.
    ///
    /// The bottom page takes the new cursor too, so a trim that keeps it resumes at the same place.
    package func advanceOlderCursor(to cursor: String?, in feed: inout FeedRecord) throws {
        if let bottomPage = try lastPageNo(of: feed) {
            try connection.run(
                "UPDATE page SET older_cursor = ? WHERE feed_id = ? AND page_no = ?", cursor, feed.id, bottomPage)
        }
        feed.oldestCursor = cursor
        feed.endReached = cursor == nil
        feed.lastError = nil
        try save(&feed)
    }

    /// The topmost place the feed uses: its top row's, or one above it that still stands for rows,
    /// a gap whose rows above were removed or the row of an item whose removal is pending (a
    /// rejection puts it back there). New rows on top go above it: under it, they would take the
    /// place of the removed rows, and the gap would hang over them. Nil for a feed with none.
    package func headPosition(of feed: FeedRecord) throws(StorageError) -> Int64? {
        let top = feed.topPosition
        // A place with no room for pages above it (one written by hand near the lowest position) is
        // passed over: new rows go above the top row, as if it were not there.
        guard let place = try placeAboveTheRows(of: feed, above: top ?? Int64.max),
            (try? Self.position(place, movedBy: -Self.roomAboveTheHead)) != nil
        else { return top }
        return place
    }

    /// Where a page appended to the feed starts below when rows under its bottom row (or all its
    /// rows) wait for their removals: the lowest place one had (a rejection puts the item back
    /// there, above the page, which came after it), so that the page's rows do not take those
    /// places. Nil when there is none, or when it leaves no room below for pages within the range
    /// `pagedb verify` allows (a hand edit). One look at the feed's pending edits, no row read.
    private func placeBelowTheRemovedRows(of feed: FeedRecord) throws(StorageError) -> Int64? {
        let sql = """
            SELECT max(removed_position) FROM pending_edit
            WHERE feed_id = ?1 AND kind = 'remove' AND detached = 0 AND removed_position > ?2
            """
        guard let place = try connection.integer(sql, feed.id, feed.bottomPosition ?? Int64.min),
            let room = try? Self.position(place, movedBy: Self.roomAboveTheHead),
            room < Self.maxStoredMagnitude, place > -Self.maxStoredMagnitude
        else { return nil }
        return place
    }

    /// Makes the pending removals that named the list's end as the row below their item (they were
    /// the bottom rows) name `itemID`, the first row of a page appended under them: the list's end
    /// is below that page now, and a rollback goes back above it, not at the end. Not those whose
    /// item the page lists: the page's order places them.
    private func extendListEnd(
        named feed: FeedRecord, to itemID: String, listing page: [EncodedItem]
    ) throws(StorageError) {
        let sql = """
            SELECT item_id FROM pending_edit
            WHERE feed_id = ? AND kind = 'remove' AND detached = 0 AND place_lost = 0 AND below_id IS NULL
            """
        let atTheEnd = try connection.rows(sql, feed.id) { $0.string(0) }.compactMap { $0 }
        guard !atTheEnd.isEmpty else { return }
        let listed = Set(page.map(\.itemID))
        for removed in atTheEnd where !listed.contains(removed) {
            try connection.run(
                """
                UPDATE pending_edit SET below_id = ?
                WHERE feed_id = ? AND item_id = ? AND kind = 'remove' AND below_id IS NULL
                """, itemID, feed.id, removed)
        }
    }

    /// How many rows of room a place above the top row leaves above it to be the feed's head.
    private static let roomAboveTheHead = 1 << 24

    /// The topmost gap or pending removal's row above `position`, nil when there is none.
    private func placeAboveTheRows(of feed: FeedRecord, above position: Int64) throws(StorageError) -> Int64? {
        let sql = """
            SELECT min(place) FROM (
                SELECT min(above_position) AS place FROM gap WHERE feed_id = ?1 AND above_position < ?2
                UNION ALL
                SELECT min(removed_position) FROM pending_edit
                WHERE feed_id = ?1 AND kind = 'remove' AND detached = 0 AND removed_position < ?2)
            """
        return try connection.integer(sql, feed.id, position)
    }

    /// Inserts new items above the feed's head (``headPosition(of:)``), in the given order, as one
    /// new top page.
    ///
    /// The caller has checked that none of the ids is in the feed (the refresh merge decides that).
    /// No page is stored for no items: a refresh with nothing new only updates the feed's newer cursor.
    /// - Returns: The positions of the new rows, top first.
    /// - Complexity: O(*k* log *n*) for *k* items on a feed of *n* rows.
    @discardableResult
    package func prependPage(_ items: [EncodedItem], page: PageWrite, to feed: inout FeedRecord) throws -> [Int64] {
        feed.newestCursor = page.newerCursor
        feed.lastError = nil
        guard !items.isEmpty else {
            try save(&feed)
            return []
        }
        let pageNo = try Self.difference(firstPageNo(of: feed) ?? 1, 1)
        // Below an empty feed's top the first row goes to 0, as appendPage would put it.
        let top = try headPosition(of: feed) ?? Self.position(0, movedBy: items.count)
        var positions: [Int64] = []
        positions.reserveCapacity(items.count)
        for (offset, item) in items.enumerated() {
            let position = try Self.position(top, movedBy: offset - items.count)
            _ = try insert(item, position: position, pageNo: pageNo, into: feed, ignoringDuplicate: false)
            positions.append(position)
        }
        try insertPage(page, pageNo: pageNo, rowCount: items.count, into: feed)
        feed.topPosition = positions.first
        feed.bottomPosition = feed.bottomPosition ?? positions.last
        feed.rowCount = try Self.count(feed.rowCount, adding: items.count)
        feed.hasSections = feed.hasSections || items.contains { $0.section != nil }
        try save(&feed)
        return positions
    }

    /// Replaces the rows from the top down to `position` (inclusive) with `items`, in order, as one new
    /// top page: the general refresh, where the server reordered or dropped rows of the cached head.
    ///
    /// The page covered the head without a hole, so gaps inside it are gone; a gap right below the
    /// replaced head stays right below the new one. With `gapCursor` (a page that may not reach the
    /// rows below it), a gap with that cursor goes under the new head when rows remain below and no
    /// gap is there already.
    /// - Returns: The positions of the new rows, top first.
    @discardableResult
    package func replaceHead(
        through position: Int64, with items: [EncodedItem], page: PageWrite, in feed: inout FeedRecord,
        gapCursor: String? = nil
    ) throws -> [Int64] {
        // From the head: a gap above the top row is inside what the page covered.
        let top = try headPosition(of: feed) ?? position
        let removed = try deleteRows(in: feed, from: top, through: position)
        feed.rowCount = try Self.count(feed.rowCount, adding: -removed)
        let gapBelow = try gaps(of: feed).first { $0.abovePosition == position }
        try deleteGaps(in: feed, from: top, through: position, except: gapBelow?.id)
        // Rows below the replaced head stay where they are; the new head goes right above them.
        feed.topPosition = try firstPosition(after: position, in: feed)
        let rowsBelow = feed.topPosition != nil
        if !rowsBelow { feed.bottomPosition = nil }
        let positions = try prependPage(items, page: page, to: &feed)
        if let gapBelow {
            // The same gap, with its id, right below the new head (or where it was, with no head).
            try updateGap(
                id: gapBelow.id, to: positions.last ?? position, cursor: gapBelow.cursor,
                newerCursor: gapBelow.newerCursor, unfillable: gapBelow.unfillable, in: feed)
        } else if let gapCursor, rowsBelow, let last = positions.last {
            try addGap(at: last, cursor: gapCursor, in: feed, at: page.fetchedAt)
        }
        return positions
    }

    /// Deletes every row, page and gap of the feed and writes `items` as its only page.
    /// - Returns: The rows written, as ``appendPage(_:page:to:storingEmptyPage:)`` returns them.
    @discardableResult
    package func replaceFeed(
        with items: [EncodedItem], page: PageWrite, in feed: inout FeedRecord
    ) throws -> [WrittenRow] {
        try deleteRowsPagesAndGaps(of: feed)
        feed.rowCount = 0
        feed.topPosition = nil
        feed.bottomPosition = nil
        feed.hasSections = false
        let written = try appendPage(items, page: page, to: &feed)
        feed.newestCursor = page.newerCursor
        try save(&feed)
        return written
    }

    // MARK: - Rows

    /// Inserts one row; with `ignoringDuplicate`, an id already in the feed is skipped.
    ///
    /// Bound by hand, with no array of arguments: a page's writes run this once per row.
    /// - Returns: Whether the row was inserted.
    func insert(
        _ item: EncodedItem, position: Int64, pageNo: Int64, into feed: FeedRecord, ignoringDuplicate: Bool
    )
        throws(StorageError) -> Bool
    {
        let sql =
            ignoringDuplicate
            ? """
            INSERT INTO item (feed_id, item_id, position, page_no, section, payload, flags)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (feed_id, item_id) DO NOTHING
            """
            : """
            INSERT INTO item (feed_id, item_id, position, page_no, section, payload, flags)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """
        let inserted = try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, item.itemID)
            try statement.bind(3, position)
            try statement.bind(4, pageNo)
            try statement.bind(5, item.section)
            try statement.bind(6, item.payload, asText: textPayloads)
            try statement.bind(7, feed.sharedType == nil ? 0 : Self.sharedFlag)
            try statement.step()
            return connection.changes > 0
        }
        if inserted { try indexForSearch(item.itemID, payload: item.payload, in: feed) }
        return inserted
    }

    /// Replaces the payload and section of the row with `itemID`.
    /// - Returns: Whether the feed has such a row.
    @discardableResult
    package func updateItem(_ item: EncodedItem, in feed: inout FeedRecord) throws -> Bool {
        let sql = "UPDATE item SET payload = ?, section = ? WHERE feed_id = ? AND item_id = ?"
        let updated = try connection.run(sql, payload(item.payload), item.section, feed.id, item.itemID) > 0
        if updated {
            try indexForSearch(item.itemID, payload: item.payload, in: feed)
            if item.section != nil { feed.hasSections = true }
            // Saved even when only the payload changed: the change count tells other feeds of this
            // feed that an item's content changed.
            try save(&feed)
        }
        return updated
    }

    /// Replaces the payload and section of the row at `position`, whose id is `item.itemID`: the refresh
    /// merge knows where each reloaded row is, and the position index reaches it without a look-up by id.
    package func updateItem(_ item: EncodedItem, at position: Int64, in feed: inout FeedRecord) throws {
        // Bound by hand: a refresh runs this once per reloaded row.
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
        try indexForSearch(item.itemID, payload: item.payload, in: feed)
        if item.section != nil, !feed.hasSections { feed.hasSections = true }
    }

    /// Deletes the rows with positions in `from...through` and keeps the pages' row counts exact:
    /// only the pages holding such rows are counted again, not every page of the feed.
    ///
    /// Gaps stay: a gap is a place in the feed's order, and the rows it stands for are still missing
    /// when the rows around it go (a local edit). Callers that cover a gap's place delete it themselves.
    /// - Parameter notingPages: Whether the pages losing rows are noted, for those left with none
    ///   to go before the write commits (``pagesLosingRows``); a cut deletes its pages itself.
    /// - Returns: How many rows were deleted.
    func deleteRows(
        in feed: FeedRecord, from: Int64, through: Int64, notingPages: Bool = true
    ) throws(StorageError) -> Int {
        // One read of the pages losing rows serves both the empty-page check and the page groups.
        let grouped = try hasPageGroups(feed.id)
        let losing = notingPages || grouped ? try pageNos(holdingRowsOf: feed, from: from, through: through) : []
        if notingPages { notePagesLosingRows(of: feed, losing) }
        try unindexRows(of: feed, from: from, through: through)
        let recount = """
            UPDATE page SET row_count = row_count - (SELECT count(*) FROM item WHERE item.feed_id = page.feed_id
            AND item.page_no = page.page_no AND item.position BETWEEN ?2 AND ?3)
            WHERE feed_id = ?1 AND page_no IN (SELECT page_no FROM item WHERE feed_id = ?1 AND position BETWEEN ?2 AND ?3)
            """
        try connection.run(recount, feed.id, from, through)
        if grouped { try recountPageGroups(of: feed.id, holding: losing) }
        return try connection.run(
            "DELETE FROM item WHERE feed_id = ? AND position BETWEEN ? AND ?", feed.id, from, through)
    }

    func insertPage(_ page: PageWrite, pageNo: Int64, rowCount: Int, into feed: FeedRecord) throws(StorageError) {
        let sql = """
            INSERT INTO page (feed_id, page_no, request, request_cursor, older_cursor, newer_cursor, fetched_at,
            row_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        // Every page written runs this: bound one by one, with no boxed arguments.
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
        try recountPageGroups(of: feed.id, holding: [pageNo])
    }
}
