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
            // A row of a shared feed written by hand without the mark joins its item's other rows.
            if feed.sharedType != nil { try markSharedRows(of: feed, itemID: itemID) }
            if let row = try items(withIDs: [itemID], in: feed)[itemID] {
                try indexForSearch(itemID, payload: row.payload, in: feed)
            } else if let type = feed.sharedType {
                // What the item's other rows show, if any does.
                let text = try sharedDocumentText(of: itemID, sharedAs: type)
                try writeSearchDocument(owner: Self.searchOwner(of: feed), itemID: itemID, text: text)
            } else {
                try removeSearchDocument(owner: Self.searchOwner(of: feed), itemID: itemID)
            }
        }
        try connection.run("DELETE FROM search_dirty")
        return noted.count
    }

    /// Marks the rows of a feed that shares its items (`itemID`'s only, or all) as shared, where
    /// a writer by hand left them unmarked: the index, the spread of copies and the look-up by id
    /// read only marked rows.
    func markSharedRows(of feed: FeedRecord, itemID: String? = nil) throws(StorageError) {
        try connection.run(
            "UPDATE item SET flags = flags | 2 WHERE feed_id = ?1 AND (?2 IS NULL OR item_id = ?2) AND NOT flags & 2",
            feed.id, itemID)
    }
}

/// Checking and rebuilding the whole index: what `pagedb verify` and `pagedb reindex` run.
extension PageStore {
    /// How the index stands against the items: documents no row of a searchable feed shows any
    /// more (orphans), rows of searchable feeds with searchable text but no document (missing), and
    /// documents whose text no row of theirs reads as any more (stale): what a writer that bypassed
    /// the index leaves (`sqlite3` by hand). Rows waiting in a feed's backlog are not counted.
    package func searchIndexDifferences() throws -> (orphans: Int, missing: Int, stale: Int) {
        guard try hasSearchTables() else {
            // Without its tables, every searchable row with text is missing.
            var missing = 0
            for feed in try feeds() where feed.searchFields != nil {
                let fields = searchFieldList(feed.searchFields ?? "")
                for window in try window(of: feed, from: .top, limit: Int.max)
                where SearchText(payload: window.payload, fields: fields) != nil {
                    missing += 1
                }
            }
            return (0, missing, 0)
        }
        try writeSearchText()
        let orphans = """
            SELECT count(*) FROM search_doc WHERE NOT EXISTS (
                SELECT 1 FROM item JOIN feed ON feed.id = item.feed_id WHERE item.item_id = search_doc.item_id
                AND feed.search_fields IS NOT NULL AND (search_doc.owner = 'f' || item.feed_id
                    OR (item.flags & 2 AND search_doc.owner = 's' || feed.shared_type)))
            OR NOT EXISTS (SELECT 1 FROM item_search WHERE item_search.rowid = search_doc.doc)
            """
        var missing = 0
        var stale = 0
        // A shared item's document holds what each of its rows shows (see SharedSearchDocument):
        // its rows' texts, by feed id as the index reads them, are compared once all are read, and
        // not while one of them waits in a backlog (the document has yet to take it).
        var sharedDocuments: [Int64: (body: String?, texts: [String?], waiting: Bool)] = [:]
        for feed in try feeds().sorted(by: { $0.id < $1.id }) where feed.searchFields != nil {
            let fields = searchFieldList(feed.searchFields ?? "")
            let sql = """
                SELECT item.payload, search_doc.doc, item_search.body, item.position, item.flags & 2 FROM item
                LEFT JOIN search_doc ON search_doc.owner = ?2 AND search_doc.item_id = item.item_id
                LEFT JOIN item_search ON item_search.rowid = search_doc.doc
                WHERE item.feed_id = ?1
                """
            let rows = try connection.rows(sql, feed.id, Self.searchOwner(of: feed)) { row in
                (
                    payload: row.data(0) ?? Data(), doc: row.isNull(1) ? nil : row.int64(1), body: row.string(2),
                    waiting: feed.searchBacklog.map { row.int64(3) >= $0 } ?? false, marked: row.int64(4) != 0
                )
            }
            for row in rows {
                let text = SearchText(payload: row.payload, fields: fields)?.indexed
                if feed.sharedType != nil, row.marked, let doc = row.doc {
                    sharedDocuments[doc, default: (row.body, [], false)].texts.append(text)
                    if row.waiting { sharedDocuments[doc]?.waiting = true }
                } else if row.waiting {
                    continue
                } else if feed.sharedType != nil, !row.marked || row.doc == nil {
                    // A row of a shared feed not marked as one (written by hand) is no document's.
                    if text != nil { missing += 1 }
                } else if row.doc != nil {
                    if text == nil || text != row.body { stale += 1 }
                } else if text != nil {
                    missing += 1
                }
            }
        }
        stale +=
            sharedDocuments.values.filter { !$0.waiting && SharedSearchDocument.text(of: $0.texts) != $0.body }
            .count
        return (Int(try connection.integer(orphans) ?? 0), missing, stale)
    }

    /// Builds the index again from the items: the full-text table is made again as this version
    /// makes it (a file indexed by an earlier one gains its prefix index), every searchable feed's
    /// rows are indexed, and the documents no row shows go; every backlog is done.
    ///
    /// An item that had a document keeps its number: the number is the order of recency (see
    /// ``SearchHitOrder/recency``) and the key an open list's next window continues from.
    /// - Returns: How many documents the index holds.
    package func rebuildSearchIndex(progress: (Int) -> Void = { _ in }) throws -> Int {
        guard try feeds().contains(where: { $0.searchFields != nil }) || hasSearchTables() else { return 0 }
        (searchTextToWrite, searchTextSlots) = ([], [:])
        try connection.execute("DROP TABLE IF EXISTS item_search")
        searchTablesInThisWrite = nil
        try makeSearchTables()
        try connection.run("DELETE FROM search_dirty")
        var indexed = 0
        for feed in try feeds() where feed.searchFields != nil {
            if feed.sharedType != nil { try markSharedRows(of: feed) }
        }
        for feed in try feeds() where feed.searchFields != nil {
            indexed += try indexAllRows(of: feed)
            try connection.run("UPDATE feed SET search_backlog = NULL WHERE id = ?", feed.id)
            progress(indexed)
        }
        try writeSearchText()
        try connection.run("DELETE FROM search_doc WHERE doc NOT IN (SELECT rowid FROM item_search)")
        return Int(try connection.integer("SELECT count(*) FROM search_doc") ?? 0)
    }
}
