import Foundation

/// Reading a feed's ids alone, for diffable data sources.
extension PageStore {
    /// Every id of the feed, in display order.
    ///
    /// Reads the id column by the position index and never touches a payload's bytes beyond the row's
    /// first page, so a large feed costs one pass over its rows and no decoding.
    /// - Complexity: O(*n*).
    package func itemIDs(of feed: FeedRecord) throws(StorageError) -> [String] {
        // Bound by hand so the array is sized up front: a large feed's ids would copy it many times.
        try connection.withStatement("SELECT item_id FROM item WHERE feed_id = ? ORDER BY position") {
            statement throws(StorageError) in
            try statement.bind(1, feed.id)
            var ids: [String] = []
            ids.reserveCapacity(feed.rowCount)
            while try statement.step() { ids.append(statement.string(0) ?? "") }
            return ids
        }
    }
}
