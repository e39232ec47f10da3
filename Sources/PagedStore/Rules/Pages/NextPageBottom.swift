/// The bottom a next page was asked from: the feed's older cursor and the row right above it.
///
/// A next page answers later than it was asked, and meanwhile a refresh, a trim or another writer may
/// have replaced the rows it continues. It may commit only below the bottom it was asked from. The
/// cursor string alone proves nothing: offset- and page-numbered servers hand out the same cursor
/// (`page=2`, `offset=10`) for every list they serve, so a replaced list's bottom can carry the old
/// bottom's cursor. The cursor together with the row it continues does: a page older than that row,
/// asked with that cursor, belongs right under it.
///
/// Pure: the engine gives ``isContinued(byBottomOf:bottomRowID:)`` a way to read the bottom row's id,
/// which it takes only when the feed's row changed since the id was read.
struct NextPageBottom: Sendable, Equatable {
    /// The cursor the page is asked with.
    var cursor: String
    /// The id of the bottom row the page continues; nil for a feed without rows (its newest page was
    /// empty but pointed to older ones).
    var rowID: String?
    /// The feed's row when `rowID` was read from the file, if the engine knows it.
    var readWith: FeedRecord?

    /// Whether a feed whose record is `feed` still ends at this bottom, so that the page may be
    /// appended to it. `bottomRowID` reads the id of the feed's bottom row; it is not called when
    /// `feed` is the row the id was read with: every write of a feed's rows saves its row with a
    /// new change count, so an unchanged row has the rows it had then (a next page then costs no
    /// second read of its bottom).
    func isContinued(byBottomOf feed: FeedRecord, bottomRowID: () throws -> String?) rethrows -> Bool {
        guard feed.oldestCursor == cursor else { return false }
        if feed == readWith { return true }
        return try bottomRowID() == rowID
    }

    /// The same bottom, continued with `next`: a page of only known items moved the cursor on (and
    /// saved the feed's row, so the row the id was read with is no longer the file's).
    func advanced(to next: String) -> NextPageBottom {
        NextPageBottom(cursor: next, rowID: rowID)
    }
}
