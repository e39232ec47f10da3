package import Foundation

/// Local edits of single rows, and trimming a feed from the bottom.
extension PageStore {
    /// Removes the row with `itemID`.
    /// - Returns: The removed row and its row index before removal, or nil when the feed has no such row.
    package func removeItem(_ itemID: String, from feed: inout FeedRecord) throws -> (item: StoredItem, row: Int)? {
        guard let item = try items(withIDs: [itemID], in: feed)[itemID] else { return nil }
        let row = try rowIndex(ofPosition: item.position, in: feed)
        feed.rowCount -= try deleteRows(in: feed, from: item.position, through: item.position)
        if item.position == feed.topPosition { feed.topPosition = try firstPosition(after: item.position, in: feed) }
        if item.position == feed.bottomPosition {
            feed.bottomPosition = try window(of: feed, from: .before(position: item.position), limit: 1).first?.position
        }
        try save(feed)
        return (item, row)
    }

    /// Inserts a new row so that it becomes row `row` (0 is the top; `rowCount` appends).
    ///
    /// The row takes a position halfway between its neighbours; when they are adjacent, the rows
    /// below are moved down first (rare: rows are written `positionStep` apart).
    /// - Returns: The new row's position.
    @discardableResult
    package func insertItem(_ item: EncodedItem, atRow row: Int, in feed: inout FeedRecord) throws -> Int64 {
        let clampedRow = min(max(row, 0), feed.rowCount)
        let below = clampedRow < feed.rowCount ? try position(ofRow: clampedRow, in: feed) : nil
        let above = clampedRow > 0 ? try position(ofRow: clampedRow - 1, in: feed) : nil
        let position: Int64
        switch (above, below) {
        case (nil, nil): position = 0
        case (let above?, nil): position = try StoredArithmetic.sum(above, Self.positionStep, "a position")
        case (nil, let below?): position = try StoredArithmetic.difference(below, Self.positionStep, "a position")
        case (let above?, var below?):
            if try StoredArithmetic.difference(below, above, "a position") < 2 {
                try shiftRows(in: &feed, from: below, by: Self.positionStep * 2)
                below = try self.position(ofRow: clampedRow, in: feed) ?? below
            }
            position = above + (try StoredArithmetic.difference(below, above, "a position")) / 2
        }
        let pageNo: Int64
        if let neighbour = try self.pageNo(near: above ?? below, in: feed) {
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
        try connection.withStatement("UPDATE page SET row_count = row_count + 1 WHERE feed_id = ? AND page_no = ?") {
            statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, pageNo)
            try statement.step()
        }
        feed.rowCount = try StoredArithmetic.count(feed.rowCount, plus: 1)
        feed.topPosition = min(feed.topPosition ?? position, position)
        feed.bottomPosition = max(feed.bottomPosition ?? position, position)
        feed.hasSections = feed.hasSections || item.section != nil
        feed.loaded = true
        try save(feed)
        return position
    }

    /// Keeps the top `pageCount` pages and deletes every row, page and gap below them.
    ///
    /// The feed's older-side cursor moves to the last kept page's, so the next page resumes right
    /// below the rows that remain.
    /// - Returns: How many rows were deleted.
    @discardableResult
    package func trim(_ feed: inout FeedRecord, keepingPages pageCount: Int) throws -> Int {
        let pages = try pages(of: feed)
        guard pageCount < pages.count else { return 0 }
        let kept = pages.prefix(pageCount)
        let keptRows = kept.reduce(0) { $0 + $1.rowCount }
        var removed = 0
        if let firstRemoved = try position(ofRow: keptRows, in: feed) {
            removed = try deleteRows(in: feed, from: firstRemoved, through: Int64.max)
        }
        try connection.withStatement("DELETE FROM page WHERE feed_id = ? AND page_no > ?") {
            statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, kept.last?.pageNo ?? Int64.min)
            try statement.step()
        }
        feed.rowCount -= removed
        if let last = kept.last {
            feed.oldestCursor = last.olderCursor
            feed.endReached = last.olderCursor == nil
            feed.bottomPosition = try window(of: feed, from: .row(max(feed.rowCount - 1, 0)), limit: 1).first?.position
        } else {
            // Nothing left: the feed starts again from its first page.
            feed = FeedRecord(
                id: feed.id, key: feed.key, newestCursor: nil, oldestCursor: nil, endReached: false, rowCount: 0,
                topPosition: nil, bottomPosition: nil, lastRefreshAt: nil, lastError: nil,
                generation: feed.generation, loaded: false, hasSections: false, policy: feed.policy)
        }
        if feed.rowCount == 0 { feed.topPosition = nil }
        try save(feed)
        return removed
    }

    /// Trims pages from the bottom until at most `maxRows` rows remain (whole pages, so the cursor stays exact).
    /// - Returns: How many rows were deleted.
    @discardableResult
    package func trim(_ feed: inout FeedRecord, maxRows: Int) throws -> Int {
        var rows = 0
        var keep = 0
        for page in try pages(of: feed) {
            rows += page.rowCount
            if rows > maxRows { break }
            keep += 1
        }
        return try trim(&feed, keepingPages: keep)
    }

    /// Trims the pages at the bottom that were fetched before `date`.
    /// - Returns: How many rows were deleted.
    @discardableResult
    package func trim(_ feed: inout FeedRecord, fetchedBefore date: Date) throws -> Int {
        let pages = try pages(of: feed)
        let stale = pages.reversed().prefix { $0.fetchedAt < date }.count
        return try trim(&feed, keepingPages: pages.count - stale)
    }

    // MARK: - Helpers

    /// Moves every row at or below `position` down by at least `distance`, without ever making two
    /// rows share a position on the way (the position index is unique and checked row by row).
    func shiftRows(in feed: inout FeedRecord, from position: Int64, by distance: Int64) throws(StorageError) {
        let bottom = feed.bottomPosition ?? position
        let delta = try StoredArithmetic.sum(
            StoredArithmetic.difference(bottom, position, "a position"), 1 + distance, "a position")
        for sql in [
            "UPDATE item SET position = position + ?3 WHERE feed_id = ?1 AND position >= ?2",
            "UPDATE gap SET below_position = below_position + ?3 WHERE feed_id = ?1 AND below_position >= ?2",
            "UPDATE gap SET above_position = above_position + ?3 WHERE feed_id = ?1 AND above_position >= ?2",
        ] {
            try connection.withStatement(sql) { statement throws(StorageError) in
                try statement.bind(1, feed.id)
                try statement.bind(2, position)
                try statement.bind(3, delta)
                try statement.step()
            }
        }
        feed.bottomPosition = try StoredArithmetic.sum(bottom, delta, "a position")
    }

    private func pageNo(near position: Int64?, in feed: FeedRecord) throws(StorageError) -> Int64? {
        guard let position else { return try firstPageNo(of: feed) }
        return try pageNo(atPosition: position, in: feed)
    }
}
