import Foundation

/// Primitives for the rows a page proves deleted (the rule is ``DeletionProof``): reading a stretch
/// of rows, marking local rows as the server's, and deleting rows by position.
extension PageStore {
    /// The rows with positions in `after+1...through`, top first, at most `limit` of them.
    package func rows(
        after: Int64, through: Int64, limit: Int, in feed: FeedRecord
    ) throws(StorageError) -> [(itemID: String, position: Int64, local: Bool)] {
        let sql = """
            SELECT item_id, position, flags & 1 FROM item WHERE feed_id = ? AND position > ? AND position <= ?
            ORDER BY position LIMIT ?
            """
        return try connection.rows(sql, feed.id, after, through, limit) { row in
            (itemID: row.string(0) ?? "", position: row.int64(1), local: row.int64(2) != 0)
        }
    }

    /// Clears the local mark of the rows at `positions`: the server listed them.
    package func markServerRows(at positions: [Int64], in feed: FeedRecord) throws(StorageError) {
        for position in positions {
            try connection.run(
                "UPDATE item SET flags = flags & ~1 WHERE feed_id = ? AND position = ?", feed.id, position)
        }
    }

    /// Deletes the rows at `positions`, keeping the feed's count, top and bottom right, and saves it.
    package func deleteRows(at positions: [Int64], in feed: inout FeedRecord) throws {
        guard !positions.isEmpty else { return }
        for position in positions {
            _ = try deleteRows(in: feed, from: position, through: position)
        }
        let deleted = Set(positions)
        feed.rowCount = try Self.count(feed.rowCount, adding: -positions.count)
        if let top = feed.topPosition, deleted.contains(top) {
            feed.topPosition = try firstPosition(after: top, in: feed)
        }
        if let bottom = feed.bottomPosition, deleted.contains(bottom) {
            feed.bottomPosition = try window(of: feed, from: .before(position: bottom), limit: 1).first?.position
        }
        try save(&feed)
    }
}
