/// The bottom a next page was asked from: the feed's older cursor and the row right above it.
///
/// A next page answers later than it was asked, and meanwhile a refresh, a trim or another writer may
/// have replaced the rows it continues. It may commit only below the bottom it was asked from. The
/// cursor string alone proves nothing: offset- and page-numbered servers hand out the same cursor
/// (`page=2`, `offset=10`) for every list they serve, so a replaced list's bottom can carry the old
/// bottom's cursor. The cursor together with the row it continues does: a page older than that row,
/// asked with that cursor, belongs right under it.
///
/// Pure: the engine reads the bottom row's id and asks ``isContinued(byBottomOf:bottomRowID:)``.
struct NextPageBottom: Sendable, Equatable {
    /// The cursor the page is asked with.
    var cursor: String
    /// The id of the bottom row the page continues; nil for a feed without rows (its newest page was
    /// empty but pointed to older ones).
    var rowID: String?

    /// Whether a feed whose record is `feed` and whose bottom row has id `bottomRowID` still ends at
    /// this bottom, so that the page may be appended to it.
    func isContinued(byBottomOf feed: FeedRecord, bottomRowID: String?) -> Bool {
        feed.oldestCursor == cursor && bottomRowID == rowID
    }

    /// The same bottom, continued with `next`: a page of only known items moved the cursor on.
    func advanced(to next: String) -> NextPageBottom {
        NextPageBottom(cursor: next, rowID: rowID)
    }
}
