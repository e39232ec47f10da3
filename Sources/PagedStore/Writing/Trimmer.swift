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
        return try cut(&feed, keeping: TrimRule.pagesToKeep(pages, maxRows: maxRows), of: pages, in: store)
    }

    /// Trims the pages at the bottom that were fetched before `date` (see ``TrimRule``).
    /// - Returns: How many rows were deleted.
    @discardableResult
    package static func trim(_ feed: inout FeedRecord, fetchedBefore date: Date, in store: PageStore) throws -> Int {
        let pages = try store.pages(of: feed)
        return try cut(&feed, keeping: TrimRule.pagesToKeep(pages, fetchedBefore: date), of: pages, in: store)
    }

    /// Cuts the pages below the first `keep` (nil: none), moved down to keep the rows the feed's
    /// pending edits name, which are read only when the rule would cut.
    private static func cut(
        _ feed: inout FeedRecord, keeping keep: Int?, of pages: [PageRecord], in store: PageStore
    ) throws -> Int {
        guard keep != nil else { return 0 }
        let named = try store.deepestPendingEditRow(in: feed).map { $0 + 1 } ?? 0
        guard let kept = TrimRule.keeping(named, of: pages, after: keep) else { return 0 }
        return try store.cut(&feed, keepingPages: kept, of: pages)
    }
}
