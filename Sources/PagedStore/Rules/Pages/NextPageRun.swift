/// The rules a run of next pages follows, from the bottom it was asked from: which answers are a
/// loop, and when a page of only known items moves the run on.
///
/// A page-numbered list that shifted down (items arrived on top) answers a next page with items the
/// feed has, and a cursor that moved on: that is progress, and the run follows the cursor at once.
/// A server that repeats a cursor, or hands out pages of nothing new for ever, is stopped with
/// ``FeedError/Kind/paginationLoop`` instead of fetched from for ever.
///
/// Pure: ``Feed`` asks it after each answer and each commit, and performs what it says.
struct NextPageRun: Sendable, Equatable {
    /// The bottom the next answer must still continue.
    private(set) var bottom: NextPageBottom
    private var cursorsSeen: Set<String>
    private var pagesWithoutNewItems = 0
    /// How many pages of nothing new in a row stop the run (``FeedPolicy/maxPagesWithoutNewItems``).
    let limit: Int

    init(from bottom: NextPageBottom, limit: Int) {
        self.bottom = bottom
        self.cursorsSeen = [bottom.cursor]
        self.limit = limit
    }

    /// The loop error for an answer whose older cursor is the one it was asked with, else nil: such
    /// a page is never written.
    func refusal(ofAnswerPointingTo olderCursor: String?) -> FeedError? {
        guard olderCursor == bottom.cursor else { return nil }
        return FeedError(
            .paginationLoop,
            message: "The server answered the next page with the cursor it was asked with; stopped to avoid a loop")
    }

    /// The cursor a committed page moved the run on to without adding or removing a row, or nil when
    /// the page changed rows (or ended the feed): then the run is done.
    static func advancedCursor(of change: RowChange, olderCursor: String?) -> String? {
        change.inserted.isEmpty && change.deleted.isEmpty ? olderCursor : nil
    }

    /// Follows `next`, the cursor a page of nothing new moved on to; returns the loop error instead
    /// when the server gave that cursor before, or after ``limit`` such pages in a row.
    mutating func follow(_ next: String) -> FeedError? {
        pagesWithoutNewItems += 1
        guard cursorsSeen.insert(next).inserted else {
            return FeedError(
                .paginationLoop,
                message: "The server answered a next page with a cursor it had already given; stopped to avoid a loop")
        }
        guard pagesWithoutNewItems < limit else {
            return FeedError(
                .paginationLoop,
                message: "\(pagesWithoutNewItems) next pages in a row held only items the feed already has; "
                    + "stopped to avoid a loop (retry() goes on from the last cursor)")
        }
        bottom = bottom.advanced(to: next)
        return nil
    }
}
