/// The rule for a page row whose last row left (a local removal, a deletion a page proved, a refresh
/// that rewrote the head): the page row goes in the write that emptied it, and the cursors it carried
/// pass to a neighbour, so that the pages still chain by cursor and the next page and a trim resume
/// where they would have with the empty page still there. Pure: ``EmptyPages`` reads the pages and
/// carries it out.
enum EmptyPageRule {
    /// What becomes of a page left with no rows.
    enum Plan: Equatable {
        /// The page stays: it is the feed's only page, whose cursors say where the feed resumes.
        case keep
        /// The page goes, and the page above (`page`) takes its older cursor: it now ends where the
        /// emptied page ended, so the page below (or the feed's next page) still continues it.
        case giveOlderCursor(toPage: Int64, cursor: String?)
        /// The page goes, and the page below (`page`) becomes the top page, asked as the emptied
        /// page was: a page a refresh puts above it later joins it the same way.
        case giveStart(toPage: Int64, request: PageRequestKind, requestCursor: String?, newerCursor: String?)
    }

    /// What becomes of `emptied`, given the pages right above and below it (nil at either end).
    static func plan(for emptied: PageRecord, above: PageRecord?, below: PageRecord?) -> Plan {
        if let above { return .giveOlderCursor(toPage: above.pageNo, cursor: emptied.olderCursor) }
        guard let below else { return .keep }
        // A local page was asked with nothing: the page below is then a top page asked with no cursor.
        let request = emptied.request == .local ? PageRequestKind.first : emptied.request
        return .giveStart(
            toPage: below.pageNo, request: request, requestCursor: emptied.requestCursor,
            newerCursor: emptied.newerCursor)
    }

    /// Whether a page with no rows belongs in a sound file (see ``PageStore/verify()``): the page
    /// that ended the feed, stored with no rows at its bottom (see ``PageStore/appendPage(_:page:to:storingEmptyPage:)``),
    /// or the feed's only page, which keeps its cursors.
    static func mayStayEmpty(_ page: PageRecord, isBottom: Bool, pageCount: Int) -> Bool {
        pageCount == 1 || (isBottom && page.olderCursor == nil)
    }
}
