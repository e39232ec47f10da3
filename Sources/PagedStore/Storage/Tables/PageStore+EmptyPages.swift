/// Primitives for pages left with no rows (the rule is ``EmptyPageRule``): noting the pages a write
/// deletes rows from, reading a page with its neighbours, handing a page's cursors on, deleting it.
extension PageStore {
    /// The pages holding the feed's rows with positions in `from...through`.
    func pageNos(holdingRowsOf feed: FeedRecord, from: Int64, through: Int64) throws(StorageError) -> [Int64] {
        let sql = "SELECT DISTINCT page_no FROM item WHERE feed_id = ? AND position BETWEEN ? AND ?"
        return try connection.rows(sql, feed.id, from, through) { statement in statement.int64(0) }
    }

    /// Notes that the running write deletes rows of `feed` from the pages `pageNos`, for
    /// ``EmptyPages`` to look at those pages before the write commits.
    func notePagesLosingRows(of feed: FeedRecord, _ pageNos: [Int64]) {
        guard !pageNos.isEmpty else { return }
        pagesLosingRows[feed.id, default: []].formUnion(pageNos)
    }

    /// Notes every page of `feed`, which has no rows, for ``EmptyPages``: the running write adds a
    /// page, so the one emptied page the rule kept is no longer the feed's only page.
    func notePagesOfAFeedWithoutRows(_ feed: FeedRecord) throws(StorageError) {
        let pageNos = try connection.rows("SELECT page_no FROM page WHERE feed_id = ?", feed.id) { statement in
            statement.int64(0)
        }
        notePagesLosingRows(of: feed, pageNos)
    }

    /// The page `pageNo` of the feed with id `feedID`, with the pages right above and below it;
    /// nil when the feed has no such page.
    func page(
        _ pageNo: Int64, withNeighboursIn feedID: Int64
    ) throws(StorageError) -> (page: PageRecord, above: PageRecord?, below: PageRecord?)? {
        let columns = Self.pageColumns
        guard
            let page = try connection.row(
                "SELECT \(columns) FROM page WHERE feed_id = ? AND page_no = ?", feedID, pageNo, read: Self.pageRecord)
        else { return nil }
        let above = try connection.row(
            "SELECT \(columns) FROM page WHERE feed_id = ? AND page_no < ? ORDER BY page_no DESC LIMIT 1", feedID,
            pageNo, read: Self.pageRecord)
        let below = try connection.row(
            "SELECT \(columns) FROM page WHERE feed_id = ? AND page_no > ? ORDER BY page_no LIMIT 1", feedID, pageNo,
            read: Self.pageRecord)
        return (page, above, below)
    }

    /// Sets the older-side cursor of page `pageNo`.
    func setOlderCursor(_ cursor: String?, ofPage pageNo: Int64, in feedID: Int64) throws(StorageError) {
        try connection.run(
            "UPDATE page SET older_cursor = ? WHERE feed_id = ? AND page_no = ?", cursor, feedID, pageNo)
    }

    /// Sets what page `pageNo` was asked for and with, and the newer-side cursor it came with.
    func setStart(
        ofPage pageNo: Int64, in feedID: Int64, request: PageRequestKind, requestCursor: String?,
        newerCursor: String?
    ) throws(StorageError) {
        try connection.run(
            "UPDATE page SET request = ?, request_cursor = ?, newer_cursor = ? WHERE feed_id = ? AND page_no = ?",
            request.rawValue, requestCursor, newerCursor, feedID, pageNo)
    }

    /// Deletes the page row `pageNo`.
    func deletePage(_ pageNo: Int64, in feedID: Int64) throws(StorageError) {
        try connection.run("DELETE FROM page WHERE feed_id = ? AND page_no = ?", feedID, pageNo)
    }
}
