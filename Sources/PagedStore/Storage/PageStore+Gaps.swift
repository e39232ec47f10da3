package import Foundation

/// Gap markers: recording, moving, removing and filling them.
///
/// A gap is a place in a feed's order (right below every row at or above its position) with the
/// older-side cursor that fetches the rows missing there. It is not tied to the rows around it: a
/// local edit that removes the row above a gap leaves the gap in place, so the rows it stands for
/// can still be fetched.
extension PageStore {
    /// What filling a gap did.
    package struct GapFill: Sendable, Equatable {
        /// The row index of the first inserted row.
        package var firstRow: Int
        /// The positions of the inserted rows, top first, and which of the given items each holds.
        package var rows: [WrittenRow]
        /// Whether the gap is closed (the page reached the rows on its far side).
        package var closed: Bool
        /// Whether the gap stays but cannot be filled: the server has nothing more between its edges.
        package var unfillable = false
        /// The rows the page proved deleted on the server, as row indices before the fill, ascending.
        package var deletedRows: [Int] = []
    }

    /// Records a gap right below `position`; `cursor` fills it from its top, `newerCursor` (the
    /// newer-side cursor of the rows below it) from its bottom.
    /// - Returns: The gap's id.
    @discardableResult
    package func addGap(
        at position: Int64, cursor: String?, newerCursor: String? = nil, in feed: FeedRecord, at date: Date = Date()
    ) throws(StorageError) -> Int64 {
        let sql = """
            INSERT INTO gap (feed_id, above_position, cursor, newer_cursor, created_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (feed_id, above_position) DO UPDATE
            SET cursor = excluded.cursor, newer_cursor = excluded.newer_cursor, unfillable = 0
            RETURNING id
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, position)
            try statement.bind(3, cursor)
            try statement.bind(4, newerCursor)
            try statement.bind(5, date.millisecondsSince1970)
            guard try statement.step() else {
                throw StorageError(.other, message: "The gap could not be recorded")
            }
            return statement.int64(0)
        }
    }

    /// Deletes the gaps whose place is in `from...through`, but the gap with id `kept`.
    func deleteGaps(in feed: FeedRecord, from: Int64, through: Int64, except kept: Int64? = nil) throws(StorageError) {
        let sql = "DELETE FROM gap WHERE feed_id = ? AND above_position BETWEEN ? AND ? AND id IS NOT ?"
        try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, from)
            try statement.bind(3, through)
            try statement.bind(4, kept)
            try statement.step()
        }
    }

    /// Removes the gap with `id` (filled, or dismissed).
    package func removeGap(id: Int64, in feed: FeedRecord) throws(StorageError) {
        try connection.withStatement("DELETE FROM gap WHERE feed_id = ? AND id = ?") {
            statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, id)
            try statement.step()
        }
    }

    /// Moves the gap with `id` to right below `position`, with new cursors and fillability.
    func updateGap(
        id: Int64, to position: Int64, cursor: String?, newerCursor: String?, unfillable: Bool, in feed: FeedRecord
    ) throws(StorageError) {
        let sql = """
            UPDATE gap SET above_position = ?, cursor = ?, newer_cursor = ?, unfillable = ?
            WHERE feed_id = ? AND id = ?
            """
        try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, position)
            try statement.bind(2, cursor)
            try statement.bind(3, newerCursor)
            try statement.bind(4, unfillable)
            try statement.bind(5, feed.id)
            try statement.bind(6, id)
            try statement.step()
        }
    }

    /// Inserts a page fetched for the gap `id`, from its top (`end` `.top`: the page is older than
    /// the rows above) or its bottom (`.bottom`: the page is newer than the rows below), up to the
    /// first item the feed already has on the far side: the proof that the page reached those rows,
    /// which closes the gap.
    ///
    /// The rows go right below the gap's place, above any row inserted locally below it, so they are
    /// contiguous rows of the feed. They join the page of the row above the gap (or the top page),
    /// whose row count grows with them. A gap filled from the top moves below the new rows with the
    /// page's older cursor; one filled from the bottom stays above them with the page's newer cursor.
    /// A page with no items that says the server has nothing further, while rows remain on the far
    /// side, leaves the gap `unfillable`; a page with items that says so closes it.
    /// - Parameter cursor: The cursor the page returned for going on in the same direction.
    /// - Returns: Nil when the gap no longer exists.
    package func fillGap(
        id: Int64, from end: GapEnd, with items: [EncodedItem], cursor: String?, in feed: inout FeedRecord
    ) throws -> GapFill? {
        guard let gap = try gaps(of: feed).first(where: { $0.id == id }) else { return nil }
        let above = gap.abovePosition
        // Proof of reaching the far side is an id the feed has there. Ids it has on the near side are
        // no proof (a page-numbered list shifts down as items arrive on top, so its pages repeat
        // rows): they are dropped, and the page goes on. Those it lists first, from the top, still say
        // what the page goes on from: the rows between them and the gap are no longer there.
        let known = try self.items(withIDs: items.map(\.itemID), in: feed)
        func isFar(_ offset: Int) -> Bool {
            guard let position = known[items[offset].itemID]?.position else { return false }
            return end == .top ? position > above : position <= above
        }
        let far = items.indices.filter(isFar)
        let repeated =
            end == .top ? items.indices.prefix { known[items[$0].itemID].map { $0.position <= above } ?? false } : []
        let reached: Int? = end == .top ? far.first : far.last
        let candidates = end == .top ? 0..<(reached ?? items.count) : (reached.map { $0 + 1 } ?? 0)..<items.count
        let fresh = candidates.filter { known[items[$0].itemID] == nil }
        let limit = try boundary(below: above, in: feed)
        let rowsOnFarSide = end == .top ? limit != nil : (feed.topPosition.map { $0 <= above } ?? false)
        // Nothing at all, and nothing further this way, yet rows remain on the far side: the server
        // no longer has what lies between (Mastodon keeps a few hundred home posts). A page with
        // items that ends the list closes the gap: the server gave all it has.
        let reachedFarSide = reached != nil || !rowsOnFarSide
        let unfillable = !reachedFarSide && items.isEmpty && cursor == nil
        let closed = reachedFarSide || (cursor == nil && !items.isEmpty)
        // The far side's rows the page lists prove which rows between them and the gap are gone.
        let deletedRows = try ProvenDeletions.delete(
            skippedBy: items,
            known: (repeated + far).compactMap { offset in known[items[offset].itemID].map { (offset, $0.position) } },
            attachedAt: end == .top ? .upper : .lower, edge: above, in: &feed, store: self)
        let rows = try insertRows(fresh.map { items[$0] }, offsets: fresh, below: above, limit: limit, in: &feed)
        if closed {
            try removeGap(id: id, in: feed)
        } else if end == .top {
            try updateGap(
                id: id, to: rows.last?.position ?? above, cursor: cursor, newerCursor: gap.newerCursor,
                unfillable: unfillable, in: feed)
        } else {
            try updateGap(
                id: id, to: above, cursor: gap.cursor, newerCursor: cursor, unfillable: unfillable, in: feed)
        }
        return GapFill(
            firstRow: try rowCount(throughPosition: above, in: feed), rows: rows, closed: closed,
            unfillable: unfillable, deletedRows: deletedRows)
    }

    /// Inserts `items` (at `offsets` of their page) right below `above` and above `limit`, spread
    /// evenly, shifting the rows below when the positions between are too few.
    private func insertRows(
        _ items: [EncodedItem], offsets: [Int], below above: Int64, limit: Int64?, in feed: inout FeedRecord
    ) throws -> [WrittenRow] {
        guard !items.isEmpty else { return [] }
        var step = Self.positionStep
        if var limit {
            if try Self.difference(limit, above) <= Int64(items.count) {
                try shiftRows(in: &feed, from: limit, by: Self.position(0, movedBy: items.count + 1))
                limit = try boundary(below: above, in: feed) ?? limit
            }
            step = try Self.difference(limit, above) / Int64(items.count + 1)
        }
        let pageNo = try pageNo(atOrAbove: above, in: feed)
        var rows: [WrittenRow] = []
        rows.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let position = try Self.sum(above, step * Int64(index + 1))
            _ = try insert(item, position: position, pageNo: pageNo, into: feed, ignoringDuplicate: false)
            rows.append(WrittenRow(offset: offsets[index], position: position))
        }
        try connection.withStatement("UPDATE page SET row_count = row_count + ? WHERE feed_id = ? AND page_no = ?") {
            statement throws(StorageError) in
            try statement.bind(1, items.count)
            try statement.bind(2, feed.id)
            try statement.bind(3, pageNo)
            try statement.step()
        }
        if let first = rows.first?.position, let last = rows.last?.position {
            feed.topPosition = min(feed.topPosition ?? first, first)
            feed.bottomPosition = max(feed.bottomPosition ?? last, last)
        }
        feed.rowCount = try Self.count(feed.rowCount, adding: items.count)
        feed.hasSections = feed.hasSections || items.contains { $0.section != nil }
        try save(&feed)
        return rows
    }

    /// The first place below `position` that rows filling a gap there must stay above: the next
    /// row, or the next gap's place (its rows come after this gap's). Nil when neither exists.
    private func boundary(below position: Int64, in feed: FeedRecord) throws(StorageError) -> Int64? {
        let sql = """
            SELECT min(next) FROM (
                SELECT min(position) AS next FROM item WHERE feed_id = ?1 AND position > ?2
                UNION ALL SELECT min(above_position) FROM gap WHERE feed_id = ?1 AND above_position > ?2)
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, position)
            return try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
        }
    }

    /// The page of the nearest row at or above `position`, or the top page when none is above.
    private func pageNo(atOrAbove position: Int64, in feed: FeedRecord) throws(StorageError) -> Int64 {
        let sql = "SELECT page_no FROM item WHERE feed_id = ? AND position <= ? ORDER BY position DESC LIMIT 1"
        let above = try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, position)
            return try statement.step() ? statement.int64(0) : nil
        }
        if let above { return above }
        return try firstPageNo(of: feed) ?? 0
    }
}
