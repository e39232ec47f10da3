package import Foundation

/// Carries out ``TrimRule`` in the caller's write transaction.
package enum Trimmer {
    /// Trims pages from the bottom until at most `maxRows` rows remain (see ``TrimRule``).
    /// - Returns: How many rows were deleted.
    @discardableResult
    package static func trim(_ feed: inout FeedRecord, maxRows: Int, in store: PageStore) throws -> Int {
        let pages = try store.pages(of: feed)
        guard let keep = TrimRule.pagesToKeep(pages, maxRows: maxRows) else { return 0 }
        return try store.cut(&feed, keepingPages: keep, of: pages)
    }

    /// Trims the pages at the bottom that were fetched before `date` (see ``TrimRule``).
    /// - Returns: How many rows were deleted.
    @discardableResult
    package static func trim(_ feed: inout FeedRecord, fetchedBefore date: Date, in store: PageStore) throws -> Int {
        let pages = try store.pages(of: feed)
        guard let keep = TrimRule.pagesToKeep(pages, fetchedBefore: date) else { return 0 }
        return try store.cut(&feed, keepingPages: keep, of: pages)
    }
}
