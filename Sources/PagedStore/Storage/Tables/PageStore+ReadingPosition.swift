package import Foundation

/// The reader's place in a feed, kept across launches.
extension PageStore {
    /// Where the reader was: the first row on screen, its row then, and how far into it.
    package struct SavedPosition: Sendable, Equatable {
        /// The id of the first row on screen.
        package var itemID: String
        /// Its row when saved: the place to go back to when the item is gone.
        package var row: Int
        /// How far the app had scrolled into that row, in the app's units.
        package var offset: Double
        /// When it was saved.
        package var savedAt: Date
    }

    /// The saved position of `feed`, if any.
    package func readingPosition(of feed: FeedRecord) throws(StorageError) -> SavedPosition? {
        let sql = "SELECT item_id, row, offset, saved_at FROM reading_position WHERE feed_id = ?"
        return try connection.row(sql, feed.id) { statement in
            guard let itemID = statement.string(0) else { return nil }
            // An offset edited to NaN or infinity is no place in a list.
            let offset = statement.double(2)
            return SavedPosition(
                itemID: itemID, row: max(statement.int(1), 0), offset: offset.isFinite ? offset : 0,
                savedAt: Date(millisecondsSince1970: statement.int64(3)))
        }
    }

    /// Saves `position` as the place of `feed`, replacing the one before.
    package func saveReadingPosition(_ position: SavedPosition, in feed: FeedRecord) throws(StorageError) {
        let sql = """
            INSERT INTO reading_position (feed_id, item_id, row, offset, saved_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (feed_id) DO UPDATE SET item_id = excluded.item_id, row = excluded.row,
            offset = excluded.offset, saved_at = excluded.saved_at
            """
        try connection.run(
            sql, feed.id, position.itemID, position.row, position.offset, position.savedAt.millisecondsSince1970)
    }

    /// The row of the item `id` in `feed`, or nil when the feed does not have it.
    package func row(ofItem id: String, in feed: FeedRecord) throws(StorageError) -> Int? {
        guard let item = try items(withIDs: [id], in: feed)[id] else { return nil }
        return try rowIndex(ofPosition: item.position, in: feed)
    }
}
