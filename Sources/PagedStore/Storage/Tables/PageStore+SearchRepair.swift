import Foundation

/// Repairing the search index after writers that bypass PagedStore (`sqlite3` by hand, another
/// SQLite library): the file's triggers note each row of a searchable feed such a writer inserts,
/// changes or deletes, and the next open indexes those rows again.
///
/// PagedStore's own connections never fire the triggers (they turn triggers off, see
/// ``Connection``): their writes keep the index in the write's own transaction, and pay nothing
/// for the notes. Any other connection fires them, since SQLite runs triggers by default.
extension PageStore {
    /// The table of noted rows and the triggers that fill it, made with the index's tables.
    ///
    /// `search_dirty`: each row of a searchable feed another writer inserted, changed (its payload,
    /// id or feed) or deleted, by feed and item id, once.
    static let searchRepairSQL = """
        CREATE TABLE IF NOT EXISTS search_dirty (
            feed_id INTEGER NOT NULL,
            item_id TEXT NOT NULL,
            PRIMARY KEY (feed_id, item_id)
        ) STRICT, WITHOUT ROWID;
        CREATE TRIGGER IF NOT EXISTS search_dirty_insert AFTER INSERT ON item
        WHEN EXISTS (SELECT 1 FROM feed WHERE feed.id = NEW.feed_id AND feed.search_fields IS NOT NULL)
        BEGIN
            INSERT OR IGNORE INTO search_dirty (feed_id, item_id) VALUES (NEW.feed_id, NEW.item_id);
        END;
        CREATE TRIGGER IF NOT EXISTS search_dirty_delete AFTER DELETE ON item
        WHEN EXISTS (SELECT 1 FROM feed WHERE feed.id = OLD.feed_id AND feed.search_fields IS NOT NULL)
        BEGIN
            INSERT OR IGNORE INTO search_dirty (feed_id, item_id) VALUES (OLD.feed_id, OLD.item_id);
        END;
        CREATE TRIGGER IF NOT EXISTS search_dirty_update AFTER UPDATE OF payload, item_id, feed_id ON item
        BEGIN
            INSERT OR IGNORE INTO search_dirty (feed_id, item_id) SELECT OLD.feed_id, OLD.item_id
                WHERE EXISTS (SELECT 1 FROM feed WHERE feed.id = OLD.feed_id AND feed.search_fields IS NOT NULL);
            INSERT OR IGNORE INTO search_dirty (feed_id, item_id) SELECT NEW.feed_id, NEW.item_id
                WHERE EXISTS (SELECT 1 FROM feed WHERE feed.id = NEW.feed_id AND feed.search_fields IS NOT NULL);
        END;
        """

    /// The names of ``searchRepairSQL``'s objects.
    private static let searchRepairObjects = [
        "search_dirty", "search_dirty_insert", "search_dirty_delete", "search_dirty_update",
    ]

    /// Whether the file has the table and triggers that note other writers' rows (a file indexed
    /// by an earlier PagedStore lacks them until its next write of a searchable feed's fields or
    /// its next repair).
    func hasSearchRepairObjects() throws(StorageError) -> Bool {
        let names = Self.searchRepairObjects.map { "'\($0)'" }.joined(separator: ", ")
        return try connection.integer("SELECT count(*) FROM sqlite_schema WHERE name IN (\(names))")
            == Int64(Self.searchRepairObjects.count)
    }

    /// Whether the index needs ``repairSearchIndex()``: it lacks the objects that note other
    /// writers' rows, or they noted some. One look at a small table.
    package func searchIndexNeedsRepair() throws(StorageError) -> Bool {
        guard try hasSearchTables() else { return false }
        guard try hasSearchRepairObjects() else { return true }
        return try connection.integer("SELECT EXISTS (SELECT 1 FROM search_dirty)") == 1
    }

    /// Indexes again every row other writers noted (a row gone takes its document with it, unless
    /// another feed sharing the item still shows it), forgets the notes, and makes the noting
    /// objects when the file lacks them. In the caller's write transaction.
    /// - Returns: How many noted rows it went through.
    package func repairSearchIndex() throws(StorageError) -> Int {
        guard try hasSearchTables() else { return 0 }
        try makeSearchTables()
        let noted = try connection.rows("SELECT feed_id, item_id FROM search_dirty") { row in
            (feedID: row.int64(0), itemID: row.string(1) ?? "")
        }
        for (feedID, itemID) in noted {
            guard let feed = try feed(id: feedID), feed.searchFields != nil else { continue }
            if let row = try items(withIDs: [itemID], in: feed)[itemID] {
                try indexForSearch(itemID, payload: row.payload, in: feed)
            } else if let holder = try otherSearchableHolder(of: itemID, in: feed) {
                try indexForSearch(itemID, payload: holder.payload, in: holder.feed)
            } else {
                try removeSearchDocument(owner: Self.searchOwner(of: feed), itemID: itemID)
            }
        }
        try connection.run("DELETE FROM search_dirty")
        return noted.count
    }

    /// Another searchable feed's row of a shared item, whose copy its one document shows once the
    /// row of `feed` is gone.
    private func otherSearchableHolder(
        of itemID: String, in feed: FeedRecord
    ) throws(StorageError) -> (feed: FeedRecord, payload: Data)? {
        guard let type = feed.sharedType else { return nil }
        for holder in try sharedHolders(of: itemID, sharedAs: type, except: feed.id) {
            guard let other = try self.feed(id: holder.feedID), other.searchFields != nil,
                let row = try items(withIDs: [itemID], in: other)[itemID]
            else { continue }
            return (other, row.payload)
        }
        return nil
    }
}
