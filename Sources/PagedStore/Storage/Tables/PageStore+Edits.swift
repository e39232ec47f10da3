import Foundation

/// Local edits of single rows, and cutting a feed's bottom pages.
extension PageStore {
    /// Removes the row with `itemID`.
    /// - Returns: The removed row and its row index before removal, or nil when the feed has no such row.
    package func removeItem(_ itemID: String, from feed: inout FeedRecord) throws -> (item: StoredItem, row: Int)? {
        guard let item = try items(withIDs: [itemID], in: feed)[itemID] else { return nil }
        let row = try rowIndex(ofPosition: item.position, in: feed)
        let removed = try deleteRows(in: feed, from: item.position, through: item.position)
        feed.rowCount = try Self.count(feed.rowCount, adding: -removed)
        if item.position == feed.topPosition { feed.topPosition = try firstPosition(after: item.position, in: feed) }
        if item.position == feed.bottomPosition {
            feed.bottomPosition = try window(of: feed, from: .before(position: item.position), limit: 1).first?.position
        }
        try save(&feed)
        return (item, row)
    }

    /// Inserts a new row so that it becomes row `row` (0 is the top; `rowCount` appends).
    ///
    /// The row takes a position halfway between its neighbours; when they are adjacent, the rows
    /// below are moved down first (rare: rows are written `positionStep` apart).
    /// - Parameter local: Whether the app made the row up (a local or optimistic insert), rather
    ///   than putting back a row a server listed: pages that skip a local row do not delete it.
    /// - Returns: The new row's position.
    @discardableResult
    package func insertItem(
        _ item: EncodedItem, atRow row: Int, local: Bool, in feed: inout FeedRecord
    ) throws -> Int64 {
        let clampedRow = min(max(row, 0), feed.rowCount)
        let below = clampedRow < feed.rowCount ? try position(ofRow: clampedRow, in: feed) : nil
        let above = clampedRow > 0 ? try position(ofRow: clampedRow - 1, in: feed) : nil
        let position: Int64
        switch (above, below) {
        case (nil, nil): position = 0
        case (let above?, nil): position = try Self.position(above, movedBy: 1)
        case (nil, let below?): position = try Self.position(below, movedBy: -1)
        case (let above?, var below?):
            if try Self.difference(below, above) < 2 {
                try shiftRows(in: &feed, from: below, by: Self.positionStep * 2)
                below = try self.position(ofRow: clampedRow, in: feed) ?? below
            }
            position = try Self.sum(above, Self.difference(below, above) / 2)
        }
        return try insertItem(item, at: position, near: above ?? below, local: local, in: &feed)
    }

    /// Inserts a row at `position`, which no row of the feed holds (a rolled-back removal's row put
    /// back where it stood), in the page of the row right above it or, at the top, right below it.
    /// - Returns: The position.
    @discardableResult
    package func insertItem(
        _ item: EncodedItem, atPosition position: Int64, local: Bool, in feed: inout FeedRecord
    ) throws -> Int64 {
        let near =
            try window(of: feed, from: .before(position: position), limit: 1).first?.position
            ?? window(of: feed, from: .after(position: position), limit: 1).first?.position
        return try insertItem(item, at: position, near: near, local: local, in: &feed)
    }

    /// Inserts a row at `position` in the page of the row at `near` (nil: a feed with no rows), and
    /// keeps the feed's and the pages' counts.
    private func insertItem(
        _ item: EncodedItem, at position: Int64, near: Int64?, local: Bool, in feed: inout FeedRecord
    ) throws -> Int64 {
        let pageNo: Int64
        if let neighbour = try self.pageNo(near: near, in: feed) {
            pageNo = neighbour
        } else {
            // A feed with no pages yet: the local row gets a page of its own, so row counts stay exact.
            pageNo = 0
            try insertPage(
                PageWrite(request: .local, requestCursor: nil, olderCursor: nil, newerCursor: nil), pageNo: 0,
                rowCount: 0, into: feed)
        }
        if try !insert(item, position: position, pageNo: pageNo, into: feed, ignoringDuplicate: true) {
            throw StorageError(.constraint, message: "The feed already has an item with this id")
        }
        if local {
            try connection.run(
                "UPDATE item SET flags = flags | 1 WHERE feed_id = ? AND position = ?", feed.id, position)
        }
        try connection.run(
            "UPDATE page SET row_count = row_count + 1 WHERE feed_id = ? AND page_no = ?", feed.id, pageNo)
        try recountPageGroups(of: feed.id, holding: [pageNo])
        feed.rowCount = try Self.count(feed.rowCount, adding: 1)
        feed.topPosition = min(feed.topPosition ?? position, position)
        feed.bottomPosition = max(feed.bottomPosition ?? position, position)
        feed.hasSections = feed.hasSections || item.section != nil
        feed.loaded = true
        try save(&feed)
        return position
    }

    /// Keeps the top `keep` of `pages` (the feed's, top first) and deletes every row, page and gap
    /// below them; the feed's older-side cursor becomes the last kept page's. Where a cut may be made
    /// is ``TrimRule``'s to say.
    /// - Returns: How many rows were deleted.
    package func cut(_ feed: inout FeedRecord, keepingPages keep: Int, of pages: [PageRecord]) throws -> Int {
        let kept = pages.prefix(max(keep, 0))
        var keptRows = 0
        for page in kept { keptRows = try Self.count(keptRows, adding: page.rowCount) }
        var removed = 0
        if let firstRemoved = try position(ofRow: keptRows, in: feed) {
            removed = try deleteRows(in: feed, from: firstRemoved, through: Int64.max, notingPages: false)
        }
        let lastKept = keptRows > 0 ? try position(ofRow: keptRows - 1, in: feed) : nil
        // The next page covers what lies below the last kept row: gaps there would stand for it twice.
        try deleteGaps(in: feed, from: lastKept ?? Int64.min, through: Int64.max)
        try connection.run(
            "DELETE FROM page WHERE feed_id = ? AND page_no > ?", feed.id, kept.last?.pageNo ?? Int64.min)
        feed.rowCount = try Self.count(feed.rowCount, adding: -removed)
        if let last = kept.last {
            feed.oldestCursor = last.olderCursor
            feed.endReached = last.olderCursor == nil
            feed.bottomPosition = lastKept
        }
        if feed.rowCount == 0 { feed.topPosition = nil }
        try save(&feed)
        return removed
    }

    // MARK: - Helpers

    /// Moves every row at or below `position` down by at least `distance`, without ever making two
    /// rows share a position on the way (the position index is unique and checked row by row).
    func shiftRows(in feed: inout FeedRecord, from position: Int64, by distance: Int64) throws(StorageError) {
        // Everything moved lands past everything that moves: no two rows (or gaps) meet on the way.
        let lastGap = try connection.integer(
            "SELECT coalesce(max(above_position), ?2) FROM gap WHERE feed_id = ?1", feed.id, position)
        // The places of rows whose removals wait move with the rows around them: a rejection puts
        // the item back there, among the same rows.
        let lastRemoved = try connection.integer(
            """
            SELECT coalesce(max(removed_position), ?2) FROM pending_edit
            WHERE feed_id = ?1 AND kind = 'remove' AND detached = 0
            """, feed.id, position)
        let bottom = feed.bottomPosition ?? position
        let lowest = max(bottom, lastGap ?? bottom, lastRemoved ?? bottom, position)
        let delta = try Self.sum(Self.sum(Self.difference(lowest, position), 1), distance)
        for sql in [
            "UPDATE item SET position = position + ?3 WHERE feed_id = ?1 AND position >= ?2",
            "UPDATE gap SET above_position = above_position + ?3 WHERE feed_id = ?1 AND above_position >= ?2",
            """
            UPDATE pending_edit SET removed_position = removed_position + ?3
            WHERE feed_id = ?1 AND kind = 'remove' AND detached = 0 AND removed_position >= ?2
            """,
        ] {
            try connection.run(sql, feed.id, position, delta)
        }
        if let bottom = feed.bottomPosition, bottom >= position { feed.bottomPosition = try Self.sum(bottom, delta) }
    }

    private func pageNo(near position: Int64?, in feed: FeedRecord) throws(StorageError) -> Int64? {
        guard let position else { return try firstPageNo(of: feed) }
        return try pageNo(atPosition: position, in: feed)
    }
}
