/// Carries out ``EmptyPageRule`` before a write commits, in its transaction: every page the write's
/// removals left with no rows goes, and so does a feed's kept empty page once the write added
/// another; its cursors pass on (see ``PageStore/pagesLosingRows``).
enum EmptyPages {
    /// Removes the pages the running write left with no rows, and forgets which pages lost rows.
    static func remove(in store: PageStore) throws {
        let touched = store.pagesLosingRows
        store.pagesLosingRows = [:]
        for (feedID, pageNos) in touched {
            // Top first: each page's neighbours are read after the emptied pages above it went.
            for pageNo in pageNos.sorted() {
                guard let found = try store.page(pageNo, withNeighboursIn: feedID), found.page.rowCount == 0 else {
                    continue
                }
                switch EmptyPageRule.plan(for: found.page, above: found.above, below: found.below) {
                case .keep: continue
                case .giveOlderCursor(let page, let cursor):
                    try store.setOlderCursor(cursor, ofPage: page, in: feedID)
                case .giveStart(let page, let request, let requestCursor, let newerCursor):
                    try store.setStart(
                        ofPage: page, in: feedID, request: request, requestCursor: requestCursor,
                        newerCursor: newerCursor)
                }
                try store.deletePage(pageNo, in: feedID)
            }
        }
    }
}
