package import Foundation

/// Gap markers: recording, moving and removing them, and inserting a gap's rows (the rule for a fill
/// is ``GapFillRule``).
///
/// A gap is a place in a feed's order (right below every row at or above its position) with the
/// older-side cursor that fetches the rows missing there. It is not tied to the rows around it: a
/// local edit that removes the row above a gap leaves the gap in place, so the rows it stands for
/// can still be fetched.
extension PageStore {
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
        guard let id = try connection.integer(sql, feed.id, position, cursor, newerCursor, date.millisecondsSince1970)
        else { throw StorageError(.other, message: "The gap could not be recorded") }
        return id
    }

    /// Deletes the gaps whose place is in `from...through`, but the gap with id `kept`.
    func deleteGaps(in feed: FeedRecord, from: Int64, through: Int64, except kept: Int64? = nil) throws(StorageError) {
        let sql = "DELETE FROM gap WHERE feed_id = ? AND above_position BETWEEN ? AND ? AND id IS NOT ?"
        try connection.run(sql, feed.id, from, through, kept)
    }

    /// Removes the gap with `id` (filled, or dismissed).
    package func removeGap(id: Int64, in feed: FeedRecord) throws(StorageError) {
        try connection.run("DELETE FROM gap WHERE feed_id = ? AND id = ?", feed.id, id)
    }

    /// Moves the gap with `id` to right below `position`, with new cursors and fillability.
    package func updateGap(
        id: Int64, to position: Int64, cursor: String?, newerCursor: String?, unfillable: Bool, in feed: FeedRecord
    ) throws(StorageError) {
        let sql = """
            UPDATE gap SET above_position = ?, cursor = ?, newer_cursor = ?, unfillable = ?
            WHERE feed_id = ? AND id = ?
            """
        try connection.run(sql, position, cursor, newerCursor, unfillable, feed.id, id)
    }

    /// Inserts `items` (at `offsets` of their page) right below `above` and above the first place
    /// under it (``boundary(below:in:placesOfRemovedRows:)``, the places of removed rows included),
    /// spread evenly, shifting the rows below when the positions between are too few.
    package func insertRows(
        _ items: [EncodedItem], offsets: [Int], below above: Int64, in feed: inout FeedRecord
    ) throws -> [WrittenRow] {
        guard !items.isEmpty else { return [] }
        var step = Self.positionStep
        if var limit = try boundary(below: above, in: feed, placesOfRemovedRows: true) {
            if try Self.difference(limit, above) <= Int64(items.count) {
                try shiftRows(in: &feed, from: limit, by: Self.position(0, movedBy: items.count + 1))
                limit = try boundary(below: above, in: feed, placesOfRemovedRows: true) ?? limit
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
        try connection.run(
            "UPDATE page SET row_count = row_count + ? WHERE feed_id = ? AND page_no = ?", items.count, feed.id, pageNo)
        try recountPageGroups(of: feed.id, holding: [pageNo])
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
    /// row, or the next gap's place (its rows come after this gap's), and with
    /// `placesOfRemovedRows`, the place of the next row whose removal waits (a rejection puts its
    /// item back there, under the fill). Nil when none exists.
    package func boundary(
        below position: Int64, in feed: FeedRecord, placesOfRemovedRows: Bool = false
    ) throws(StorageError) -> Int64? {
        let removed = """
            UNION ALL SELECT min(removed_position) FROM pending_edit
            WHERE feed_id = ?1 AND kind = 'remove' AND detached = 0 AND removed_position > ?2
            """
        let sql = """
            SELECT min(next) FROM (
                SELECT min(position) AS next FROM item WHERE feed_id = ?1 AND position > ?2
                UNION ALL SELECT min(above_position) FROM gap WHERE feed_id = ?1 AND above_position > ?2
                \(placesOfRemovedRows ? removed : ""))
            """
        return try connection.integer(sql, feed.id, position)
    }

    /// The position of the last row below `position` and above the next gap under it (or at the
    /// feed's bottom): the last row of the stretch a gap at `position` hangs over. Nil when none.
    package func lastPosition(ofRowsBelow position: Int64, in feed: FeedRecord) throws(StorageError) -> Int64? {
        let sql = """
            SELECT max(position) FROM item WHERE feed_id = ?1 AND position > ?2 AND position <= coalesce(
                (SELECT min(above_position) FROM gap WHERE feed_id = ?1 AND above_position > ?2),
                9223372036854775807)
            """
        return try connection.integer(sql, feed.id, position)
    }

    /// The page of the nearest row at or above `position`, or the top page when none is above.
    private func pageNo(atOrAbove position: Int64, in feed: FeedRecord) throws(StorageError) -> Int64 {
        let sql = "SELECT page_no FROM item WHERE feed_id = ? AND position <= ? ORDER BY position DESC LIMIT 1"
        if let above = try connection.integer(sql, feed.id, position) { return above }
        return try firstPageNo(of: feed) ?? 0
    }
}

extension PageStore {
    /// The gaps above the feed's top row (every gap of a feed with no rows): left where the rows
    /// above them were removed.
    package func gapsAboveTheTop(of feed: FeedRecord) throws(StorageError) -> [(id: Int64, place: Int64)] {
        let sql = "SELECT id, above_position FROM gap WHERE feed_id = ? AND above_position < ? ORDER BY above_position"
        return try connection.rows(sql, feed.id, feed.topPosition ?? Int64.max) { row in
            (id: row.int64(0), place: row.int64(1))
        }
    }

    /// The items whose removals wait, with the positions their rows had.
    func waitingRemovals(of feed: FeedRecord) throws(StorageError) -> [RefreshMerge.WaitingRemoval] {
        let sql = """
            SELECT item_id, removed_position FROM pending_edit
            WHERE feed_id = ? AND kind = 'remove' AND detached = 0 AND removed_position IS NOT NULL
            """
        return try connection.rows(sql, feed.id) { row in
            RefreshMerge.WaitingRemoval(itemID: row.string(0) ?? "", position: row.int64(1))
        }
    }
}
