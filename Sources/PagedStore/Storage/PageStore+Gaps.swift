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
        /// Whether the gap is closed (the page reached the rows below it, or the server's end).
        package var closed: Bool
    }

    /// Records a gap right below `position`; `cursor` fills it from its top.
    /// - Returns: The gap's id.
    @discardableResult
    package func addGap(
        at position: Int64, cursor: String?, in feed: FeedRecord, at date: Date = Date()
    ) throws(StorageError) -> Int64 {
        let sql = """
            INSERT INTO gap (feed_id, above_position, cursor, created_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (feed_id, above_position) DO UPDATE SET cursor = excluded.cursor
            RETURNING id
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, position)
            try statement.bind(3, cursor)
            try statement.bind(4, date.millisecondsSince1970)
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

    /// Moves the gap with `id` to right below `position`, with a new cursor.
    func moveGap(id: Int64, to position: Int64, cursor: String?, in feed: FeedRecord) throws(StorageError) {
        try connection.withStatement("UPDATE gap SET above_position = ?, cursor = ? WHERE feed_id = ? AND id = ?") {
            statement throws(StorageError) in
            try statement.bind(1, position)
            try statement.bind(2, cursor)
            try statement.bind(3, feed.id)
            try statement.bind(4, id)
            try statement.step()
        }
    }

    /// Inserts a page fetched for the gap `id` right below the gap's place, up to the first item the
    /// feed already has (the proof that the page reached rows the feed has, which closes the gap).
    ///
    /// The rows go directly under the gap's place, above any row inserted locally below it, so they
    /// are contiguous rows of the feed. They join the page of the row above the gap (or the top page),
    /// whose row count grows with them. An open gap moves below the new rows with the page's cursor.
    /// - Returns: Nil when the gap no longer exists.
    package func fillGap(
        id: Int64, with items: [EncodedItem], olderCursor: String?, in feed: inout FeedRecord
    ) throws -> GapFill? {
        guard let gap = try gaps(of: feed).first(where: { $0.id == id }) else { return nil }
        let above = gap.abovePosition
        // Proof that the page reached the rows below the gap is an id the feed has below it. Ids the
        // feed has above the gap are no proof (a page-numbered list shifts down as items arrive on
        // top, so its pages repeat rows from above): they are dropped, and the page goes on.
        let known = try self.items(withIDs: items.map(\.itemID), in: feed)
        let firstBelow = items.firstIndex { (known[$0.itemID]?.position).map { $0 > above } ?? false }
        let fresh = (0..<(firstBelow ?? items.count)).filter { known[items[$0].itemID] == nil }
        let closed = firstBelow != nil || olderCursor == nil
        var step = Self.positionStep
        if var limit = try boundary(below: above, in: feed) {
            if try Self.difference(limit, above) <= Int64(fresh.count) {
                try shiftRows(in: &feed, from: limit, by: Self.position(0, movedBy: fresh.count + 1))
                limit = try boundary(below: above, in: feed) ?? limit
            }
            step = try Self.difference(limit, above) / Int64(fresh.count + 1)
        }
        let pageNo = try pageNo(atOrAbove: above, in: feed)
        var rows: [WrittenRow] = []
        rows.reserveCapacity(fresh.count)
        for (index, offset) in fresh.enumerated() {
            let item = items[offset]
            let position = try Self.sum(above, step * Int64(index + 1))
            _ = try insert(item, position: position, pageNo: pageNo, into: feed, ignoringDuplicate: false)
            rows.append(WrittenRow(offset: offset, position: position))
        }
        try connection.withStatement("UPDATE page SET row_count = row_count + ? WHERE feed_id = ? AND page_no = ?") {
            statement throws(StorageError) in
            try statement.bind(1, fresh.count)
            try statement.bind(2, feed.id)
            try statement.bind(3, pageNo)
            try statement.step()
        }
        if closed {
            try removeGap(id: id, in: feed)
        } else {
            try moveGap(id: id, to: rows.last?.position ?? above, cursor: olderCursor, in: feed)
        }
        if let first = rows.first?.position, let last = rows.last?.position {
            feed.topPosition = min(feed.topPosition ?? first, first)
            feed.bottomPosition = max(feed.bottomPosition ?? last, last)
        }
        feed.rowCount = try Self.count(feed.rowCount, adding: fresh.count)
        feed.hasSections = feed.hasSections || fresh.contains { items[$0].section != nil }
        try save(feed)
        return GapFill(firstRow: try rowCount(throughPosition: above, in: feed), rows: rows, closed: closed)
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
