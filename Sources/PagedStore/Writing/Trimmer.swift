package import Foundation

/// Carries out ``TrimRule`` in the caller's write transaction. No trim cuts a row a pending edit
/// names (the edited item and the rows an inserted or removed one goes back between): the user's
/// edit, queued or waiting for its server, keeps its place, as it does against the store's budget.
package enum Trimmer {
    /// Trims pages from the bottom until at most `maxRows` rows remain (see ``TrimRule``).
    /// - Returns: How many rows were deleted.
    @discardableResult
    package static func trim(_ feed: inout FeedRecord, maxRows: Int, in store: PageStore) throws -> Int {
        let pages = try store.pages(of: feed)
        guard TrimRule.pagesToKeep(pages, maxRows: maxRows) != nil else { return 0 }
        let kept = try rowsPendingEditsName(in: feed, store)
        guard let keep = TrimRule.pagesToKeep(pages, maxRows: maxRows, keepingRows: kept) else { return 0 }
        return try store.cut(&feed, keepingPages: keep, of: pages)
    }

    /// Trims the pages at the bottom that were fetched before `date` (see ``TrimRule``).
    /// - Returns: How many rows were deleted.
    @discardableResult
    package static func trim(_ feed: inout FeedRecord, fetchedBefore date: Date, in store: PageStore) throws -> Int {
        let pages = try store.pages(of: feed)
        guard TrimRule.pagesToKeep(pages, fetchedBefore: date) != nil else { return 0 }
        let kept = try rowsPendingEditsName(in: feed, store)
        guard let keep = TrimRule.pagesToKeep(pages, fetchedBefore: date, keepingRows: kept) else { return 0 }
        return try store.cut(&feed, keepingPages: keep, of: pages)
    }

    /// How many rows from the top a trim keeps for the feed's pending edits: down to the deepest
    /// row one names. Read only when a trim would cut, so a feed without edits pays one look then.
    private static func rowsPendingEditsName(in feed: FeedRecord, _ store: PageStore) throws -> Int {
        try store.deepestPendingEditRow(in: feed).map { $0 + 1 } ?? 0
    }
}
