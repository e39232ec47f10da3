import Foundation

/// Row indexes from positions, without counting the rows above: a page holds a contiguous run of
/// rows in page order (``PageStore/verify(rules:)`` checks it) and keeps its row count, so the rows
/// above a row are the counts of the pages above its page and the rows above it in its own page.
/// The pages' counts are summed by groups of pages (``rowsOfPages(above:in:)``): a shared copy
/// placed 100,000 rows deep, an edit or a settlement there, costs a few dozen group sums and the
/// rows of one page, not one index entry per row above, nor one per page.
extension PageStore {
    /// How many rows have a position of at most `position`: the row index right below a gap there.
    package func rowCount(throughPosition position: Int64, in feed: FeedRecord) throws(StorageError) -> Int {
        try rowIndex(ofPosition: position, in: feed, including: true)
    }

    /// The row index of the row at `position`: how many rows are above it (with `including`, also
    /// the row at it).
    /// - Complexity: O(*r*) for row *r* up to ``rowIndexCountLimit``, then O(*s*) for the *s* rows
    ///   of the row's page above it plus the pages' sum (see ``rowsOfPages(above:in:)``); a file
    ///   whose pages do not hold contiguous runs with true counts (edited by hand) is counted row by
    ///   row instead, O(*r*) for row *r*.
    package func rowIndex(
        ofPosition position: Int64, in feed: FeedRecord, including: Bool = false
    ) throws(StorageError) -> Int {
        // Near the top (a refresh's reloads, most edits), counting a few entries of the position
        // index costs less than reading the pages: count up to a bound first.
        let near =
            including
            ? "SELECT count(*) FROM (SELECT 1 FROM item WHERE feed_id = ? AND position <= ? LIMIT ?)"
            : "SELECT count(*) FROM (SELECT 1 FROM item WHERE feed_id = ? AND position < ? LIMIT ?)"
        let counted = Int(try connection.integer(near, feed.id, position, Self.rowIndexCountLimit) ?? 0)
        if counted < Self.rowIndexCountLimit { return counted }
        if let row = try rowIndexByPages(ofPosition: position, in: feed, including: including) { return row }
        let sql =
            including
            ? "SELECT count(*) FROM item WHERE feed_id = ? AND position <= ?"
            : "SELECT count(*) FROM item WHERE feed_id = ? AND position < ?"
        return Int(try connection.integer(sql, feed.id, position) ?? 0)
    }

    /// The most rows above counted before reading the pages instead.
    static let rowIndexCountLimit = 256

    /// The most rows of one page walked before counting instead: a page written by `pagedb seed` may
    /// hold a whole feed, and counting in SQLite beats stepping through it.
    static let rowIndexPageWalkLimit = 512

    /// The row index from the page counts, or nil when the pages cannot be trusted for it: a run of
    /// rows above it in its page longer than ``rowIndexPageWalkLimit``, a page above it written
    /// after it (pages not in position order), or counts that do not add up within the feed's rows.
    private func rowIndexByPages(
        ofPosition position: Int64, in feed: FeedRecord, including: Bool
    ) throws(StorageError) -> Int? {
        let sql =
            including
            ? "SELECT page_no FROM item WHERE feed_id = ? AND position <= ? ORDER BY position DESC"
            : "SELECT page_no FROM item WHERE feed_id = ? AND position < ? ORDER BY position DESC"
        // Walk up the position index through the rows of the page just above the bound.
        let walk = try connection.withStatement(sql) {
            statement throws(StorageError) -> (page: Int64, rows: Int, next: Int64?)? in
            try statement.bind(1, feed.id)
            try statement.bind(2, position)
            guard try statement.step() else { return (0, 0, nil) }
            let page = statement.int64(0)
            var rows = 1
            while try statement.step() {
                let next = statement.int64(0)
                if next != page { return (page, rows, next) }
                rows += 1
                if rows > Self.rowIndexPageWalkLimit { return nil }
            }
            return (page, rows, nil)
        }
        guard let walk else { return nil }
        // Every row above is in the row's own page (or there is none).
        guard let next = walk.next else { return walk.rows }
        guard next < walk.page else { return nil }
        let pagesAbove = try rowsOfPages(above: walk.page, in: feed)
        // A sum of true counts is a whole number of rows that, with the run, fits in the feed.
        guard let pagesAbove, pagesAbove.rounded() == pagesAbove,
            pagesAbove + Double(walk.rows) <= Double(max(feed.rowCount, 0))
        else { return nil }
        return Int(pagesAbove) + walk.rows
    }
}
