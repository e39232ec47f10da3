import Foundation

/// The search index: kept in the transaction of every write of a searchable feed's rows, by the row
/// primitives themselves, so that no write path can leave it behind. A feed whose type declares no
/// searchable fields never reaches it (each hook returns at its first check), and a file where no
/// type declares any has none of its tables (see `0014_search.sql`).
extension PageStore {
    /// The index's tables, made when the first feed records searchable fields.
    ///
    /// `search_doc`: one document per item: a feed's own item once per feed (owner `f` and the
    /// feed's id), a shared item once whatever number of feeds hold it (owner `s` and its shared
    /// name). Its INTEGER PRIMARY KEY is the FTS5 row's id: VACUUM keeps it, where it renumbers
    /// item's rowids.
    ///
    /// `item_search`: the documents' text, the declared fields' words one space apart (see
    /// ``SearchSegmentation``). `unicode61` with `remove_diacritics 2` folds case and accents. No
    /// prefix index: measured, it made every write of a searchable row 15% slower and the index a
    /// sixth larger, while three-letter prefixes as typed were as fast without it.
    static let searchTablesSQL = """
        CREATE TABLE IF NOT EXISTS search_doc (
            doc INTEGER PRIMARY KEY,
            owner TEXT NOT NULL,
            item_id TEXT NOT NULL,
            UNIQUE (owner, item_id)
        ) STRICT;
        CREATE VIRTUAL TABLE IF NOT EXISTS item_search USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
        """ + searchRepairSQL

    /// Whether the file has the index's tables. Asked of the file each time, and only for the rows
    /// of searchable feeds: another process may have made them, and a transaction that made them
    /// may have rolled back.
    /// A write holds the file's lock, so it asks once: every searchable row of a page asked.
    func hasSearchTables() throws(StorageError) -> Bool {
        if let known = searchTablesInThisWrite { return known }
        let has =
            try connection.integer("SELECT count(*) FROM sqlite_schema WHERE name IN ('search_doc', 'item_search')")
            == 2
        if isWriting { searchTablesInThisWrite = has }
        return has
    }

    /// Makes the index's tables, and the objects that note other writers' rows (see
    /// ``searchRepairSQL``), when the file lacks them.
    func makeSearchTables() throws(StorageError) {
        let hasTables = try hasSearchTables()
        let hasRepairObjects = try hasSearchRepairObjects()
        guard !hasTables || !hasRepairObjects else { return }
        try connection.execute(Self.searchTablesSQL)
        if isWriting { searchTablesInThisWrite = true }
    }

    /// The owner of the feed's documents: the feed itself for its own items, the shared name for
    /// shared items (one document whatever number of feeds hold the item).
    static func searchOwner(of feed: FeedRecord) -> String {
        feed.sharedType.map { "s" + $0 } ?? "f\(feed.id)"
    }

    /// Records the item type's searchable fields (empty: not searchable), in `feed` too. When they
    /// change, the feed's documents go (they were read from other fields: a search must not find
    /// the item by text it no longer indexes) and every row waits to be indexed again (its backlog
    /// starts at its top row).
    /// - Returns: Whether the record changed.
    package func setSearchFields(_ fields: [String], of feed: inout FeedRecord) throws -> Bool {
        let recorded = try Self.searchFieldsText(fields)
        guard feed.searchFields != recorded else { return false }
        if recorded != nil { try makeSearchTables() }
        try unindexRows(of: feed)
        try connection.run("UPDATE feed SET search_fields = ? WHERE id = ?", recorded, feed.id)
        feed.searchFields = recorded
        try setSearchBacklog(recorded == nil ? nil : feed.topPosition, of: &feed)
        return true
    }

    /// Records where the feed's rows still wait to be indexed (nil: none do), in `feed` too.
    func setSearchBacklog(_ position: Int64?, of feed: inout FeedRecord) throws(StorageError) {
        try connection.run("UPDATE feed SET search_backlog = ? WHERE id = ?", position, feed.id)
        feed.searchBacklog = position
    }

    /// The fields as the file records them: a JSON array, nil for none.
    static func searchFieldsText(_ fields: [String]) throws -> String? {
        guard !fields.isEmpty else { return nil }
        return String(decoding: try JSONEncoder().encode(fields), as: UTF8.self)
    }

    /// The fields a feed's record names; none when the text is not an array of strings (a file
    /// edited by hand indexes nothing rather than failing its writes).
    func searchFieldList(_ recorded: String) -> [String] {
        if let cached = searchFieldCache[recorded] { return cached }
        let fields = (try? JSONDecoder().decode([String].self, from: Data(recorded.utf8))) ?? []
        searchFieldCache[recorded] = fields
        return fields
    }

    /// Indexes the item `itemID` of `feed` as `payload` shows it: its document is written again, or
    /// goes when the payload holds no searchable text. Nothing for a feed that is not searchable.
    func indexForSearch(_ itemID: String, payload: Data, in feed: FeedRecord) throws(StorageError) {
        guard let recorded = feed.searchFields, try hasSearchTables() else { return }
        let owner = Self.searchOwner(of: feed)
        guard let text = SearchText(payload: payload, fields: searchFieldList(recorded)) else {
            return try removeSearchDocument(owner: owner, itemID: itemID)
        }
        let doc = try connection.withStatement(
            """
            INSERT INTO search_doc (owner, item_id) VALUES (?, ?)
            ON CONFLICT (owner, item_id) DO UPDATE SET owner = excluded.owner RETURNING doc
            """
        ) { statement throws(StorageError) -> Int64? in
            try statement.bind(1, owner)
            try statement.bind(2, itemID)
            return try statement.step() ? statement.int64(0) : nil
        }
        guard let doc else { return }
        searchTextToWrite.append((doc, text.indexed))
        if connection.isAutocommit { try writeSearchText() }
    }

    /// Writes the running write's index text to the full-text table, in the order it was indexed.
    ///
    /// Why it waits: FTS5 (as of SQLite 3.40) writes the terms it holds in memory to a new segment
    /// of the index at every statement savepoint, and SQLite opens one for each later write that
    /// may need to undo itself (an upsert, an insert that may conflict). Written row by row between
    /// the rows' own statements, every item of a page became a segment of its own, merged again
    /// and again: a page of 50 searchable posts cost 4.5 times a plain one. Written together, a
    /// page's text is one segment. Every statement that reads or changes the full-text table, and
    /// every write before it commits (``DatabaseQueue/write(_:)``), calls this first.
    func writeSearchText() throws(StorageError) {
        guard !searchTextToWrite.isEmpty else { return }
        let pending = searchTextToWrite
        searchTextToWrite = []
        try connection.withStatement("INSERT OR REPLACE INTO item_search (rowid, body) VALUES (?, ?)") {
            statement throws(StorageError) in
            for (doc, body) in pending {
                try statement.bind(1, doc)
                try statement.bind(2, body)
                _ = try statement.step()
                statement.reset()
            }
        }
    }

    /// Runs `body` as one write of the file, its index text written before it commits, and
    /// forgotten when it rolls back, with what it learnt of the file's tables.
    package func writing<T>(_ body: () throws -> T) throws -> T {
        isWriting = true
        defer { (searchTextToWrite, searchTablesInThisWrite, isWriting) = ([], nil, false) }
        let result = try body()
        try writeSearchText()
        return result
    }

    func removeSearchDocument(owner: String, itemID: String) throws(StorageError) {
        try writeSearchText()
        try connection.run(
            "DELETE FROM item_search WHERE rowid IN (SELECT doc FROM search_doc WHERE owner = ? AND item_id = ?)",
            owner, itemID)
        try connection.run("DELETE FROM search_doc WHERE owner = ? AND item_id = ?", owner, itemID)
    }

    /// Removes the documents of the feed's rows with positions in `from...through` (every row by
    /// default), before the rows go. A shared item's document stays while another feed holds it.
    func unindexRows(
        of feed: FeedRecord, from: Int64 = .min, through: Int64 = .max
    ) throws(StorageError) {
        guard feed.searchFields != nil, try hasSearchTables() else { return }
        try writeSearchText()
        // The documents of the rows going, and for shared items only those no other feed holds.
        let leaving = """
            SELECT doc FROM search_doc WHERE owner = ?1 AND item_id IN (
                SELECT item_id FROM item WHERE feed_id = ?2 AND position BETWEEN ?3 AND ?4)
            AND NOT (?5 AND EXISTS (
                SELECT 1 FROM item AS other JOIN feed ON feed.id = other.feed_id
                WHERE other.item_id = search_doc.item_id AND other.flags & 2 AND other.feed_id != ?2
                    AND feed.shared_type = ?6 AND feed.search_fields IS NOT NULL))
            """
        let shared = feed.sharedType != nil
        let owner = Self.searchOwner(of: feed)
        try connection.run(
            "DELETE FROM item_search WHERE rowid IN (\(leaving))", owner, feed.id, from, through, shared,
            feed.sharedType)
        try connection.run(
            "DELETE FROM search_doc WHERE doc IN (\(leaving))", owner, feed.id, from, through, shared, feed.sharedType)
    }

    /// Indexes every row of the feed, a bounded batch at a time so that a million rows never sit in
    /// memory together.
    /// - Returns: How many rows it indexed.
    func indexAllRows(of feed: FeedRecord) throws(StorageError) -> Int {
        var indexed = 0
        var next: Int64? = nil
        repeat {
            let batch = try indexRows(of: feed, from: next, limit: 10_000)
            indexed += batch.indexed
            next = batch.next
        } while next != nil
        return indexed
    }

    /// Indexes up to `batch` rows of the feed's backlog, from its top, and moves the backlog below
    /// them (nil, in `feed` too, when none is left).
    /// - Returns: How many rows it indexed.
    func indexSearchBacklog(of feed: inout FeedRecord, batch: Int) throws(StorageError) -> Int {
        guard let backlog = feed.searchBacklog else { return 0 }
        let done = try indexRows(of: feed, from: backlog, limit: batch)
        try setSearchBacklog(done.next, of: &feed)
        return done.indexed
    }

    /// Indexes the feed's rows from the row at `position` down (from the top with nil), at most
    /// `limit` of them (all with nil): rows written before the type declared its fields, a bulk
    /// seed's rows, a rebuilt index.
    /// - Returns: How many rows it indexed, and the position of the first row left to index (nil
    ///   when none is).
    func indexRows(
        of feed: FeedRecord, from position: Int64?, limit: Int?
    ) throws(StorageError) -> (indexed: Int, next: Int64?) {
        guard feed.searchFields != nil else { return (0, nil) }
        let sql = """
            SELECT item_id, payload, position FROM item WHERE feed_id = ? AND position >= ?
            ORDER BY position LIMIT ?
            """
        let fetched = limit.map { min($0, Int.max - 1) + 1 } ?? -1
        let batch = try connection.rows(sql, feed.id, position ?? .min, fetched) { statement in
            (id: statement.string(0) ?? "", payload: statement.data(1) ?? Data(), position: statement.int64(2))
        }
        let indexed = batch.prefix(limit ?? Int.max)
        for row in indexed {
            try indexForSearch(row.id, payload: row.payload, in: feed)
        }
        return (indexed.count, limit.flatMap { batch.count > $0 ? batch[$0].position : nil })
    }
}

/// One document a search found, with the row that shows it.
package struct SearchHit: Sendable, Equatable {
    /// The document's id: the order of recency (a larger one was indexed first later).
    package var doc: Int64
    /// FTS5's rank (bm25, smaller is better); 0 when ordered by recency.
    package var rank: Double
    /// The feed of the row that shows it (for a shared item, the first feed holding it).
    package var feedKey: String
    /// The row.
    package var item: StoredItem
    /// The searchable fields the row's feed records (see ``FeedRecord/searchFields``).
    package var searchFields: String?
}

/// What a feed's search holds, as `pagedb show` tells it.
package struct SearchSummary: Sendable, Equatable {
    /// The fields its rows are indexed by.
    package var fields: [String]
    /// Its documents: one a row, or, for a feed of a shared type, one an item of that type.
    package var documents: Int64
    /// Whether rows cached before the fields were declared still wait to be indexed.
    package var hasBacklog: Bool
    /// The bytes the whole file's index takes; nil where SQLite cannot say (no `dbstat`).
    package var indexBytes: Int64?
}

extension PageStore {
    /// What `feed`'s search holds; nil for a feed whose type declares no searchable fields.
    package func searchSummary(of feed: FeedRecord) throws(StorageError) -> SearchSummary? {
        guard let recorded = feed.searchFields else { return nil }
        guard try hasSearchTables() else {
            return SearchSummary(fields: searchFieldList(recorded), documents: 0, hasBacklog: true, indexBytes: 0)
        }
        let documents =
            try connection.integer("SELECT count(*) FROM search_doc WHERE owner = ?", Self.searchOwner(of: feed)) ?? 0
        return SearchSummary(
            fields: searchFieldList(recorded), documents: documents, hasBacklog: feed.searchBacklog != nil,
            indexBytes: searchIndexBytes())
    }

    /// The bytes the search index's tables take in the file; nil where SQLite cannot say (`dbstat`
    /// is an optional part of SQLite).
    package func searchIndexBytes() -> Int64? {
        (try? connection.int64(
            "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'item_search%' OR name LIKE 'search_doc%'")) ?? nil
    }
}

/// How search results are ordered.
package enum SearchHitOrder: Sendable, Equatable {
    /// Best match first (FTS5's bm25), then the most recently indexed.
    case relevance
    /// The most recently indexed first.
    case recency
}

extension PageStore {
    /// The documents matching the FTS5 `expression` (built by ``SearchQuery``), in `order`, at most
    /// `limit`, each with a row that shows it; with `feedIDs`, only items held by those feeds.
    /// - Parameter after: The rank and document of the last hit of the previous window: the window
    ///   continues below it (keyset).
    package func searchHits(
        matching expression: String, order: SearchHitOrder, feedIDs: [Int64]? = nil,
        after: (rank: Double, doc: Int64)? = nil,
        limit: Int
    ) throws(StorageError) -> [SearchHit] {
        guard try hasSearchTables() else { return [] }
        try writeSearchText()
        let allowed = feedIDs.map(Set.init)
        var hits: [SearchHit] = []
        var last = after
        // Candidates come from FTS5 alone, a few more than wanted at a time, so that it ranks and
        // cuts before any join; a round that finds too few (documents of feeds not searched) asks
        // for more the next time.
        var wanted = limit > Int.max - 8 ? Int.max : max(limit, 0) + 8
        while hits.count < limit {
            let candidates = try searchCandidates(expression, order: order, after: last, limit: wanted)
            for candidate in candidates where hits.count < limit {
                guard let shown = try row(showingDocument: candidate.doc, in: allowed) else { continue }
                hits.append(
                    SearchHit(
                        doc: candidate.doc, rank: candidate.rank, feedKey: shown.key, item: shown.item,
                        searchFields: shown.searchFields))
            }
            guard candidates.count == wanted, let next = candidates.last else { break }
            last = next
            wanted = wanted.multipliedReportingOverflow(by: 4).overflow ? wanted : wanted * 4
        }
        return hits
    }

    /// The next `limit` documents matching `expression` below `after`, in `order`, from the FTS5
    /// table alone (its rowid is the document's id).
    private func searchCandidates(
        _ expression: String, order: SearchHitOrder, after: (rank: Double, doc: Int64)?, limit: Int
    ) throws(StorageError) -> [(rank: Double, doc: Int64)] {
        let sql: String
        switch (order, after) {
        case (.relevance, nil):
            sql = "SELECT rowid, rank FROM item_search WHERE item_search MATCH ?1 ORDER BY rank, rowid DESC LIMIT ?4"
        case (.relevance, _):
            sql = """
                SELECT rowid, rank FROM item_search WHERE item_search MATCH ?1
                AND (rank > ?2 OR (rank = ?2 AND rowid < ?3)) ORDER BY rank, rowid DESC LIMIT ?4
                """
        case (.recency, nil):
            sql = "SELECT rowid, 0.0 FROM item_search WHERE item_search MATCH ?1 ORDER BY rowid DESC LIMIT ?4"
        case (.recency, _):
            sql =
                "SELECT rowid, 0.0 FROM item_search WHERE item_search MATCH ?1 AND rowid < ?3 ORDER BY rowid DESC LIMIT ?4"
        }
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, expression)
            if let after {
                if order == .relevance { try statement.bind(2, after.rank) }
                try statement.bind(3, after.doc)
            }
            try statement.bind(4, limit)
            var found: [(rank: Double, doc: Int64)] = []
            while try statement.step() { found.append((statement.double(1), statement.int64(0))) }
            return found
        }
    }

    /// The row that shows document `doc`, in one of `allowed` feeds when given; nil when none does
    /// (a document left by a writer that bypassed the index).
    private func row(
        showingDocument doc: Int64, in allowed: Set<Int64>?
    ) throws(StorageError) -> (key: String, item: StoredItem, searchFields: String?)? {
        let owned = try connection.withStatement("SELECT owner, item_id FROM search_doc WHERE doc = ?") {
            statement throws(StorageError) -> (owner: String, itemID: String)? in
            try statement.bind(1, doc)
            guard try statement.step(), let owner = statement.string(0), let itemID = statement.string(1) else {
                return nil
            }
            return (owner, itemID)
        }
        guard let owned else { return nil }
        return try row(showing: owned.itemID, of: owned.owner, in: allowed)
    }

    /// The row that shows the document of `itemID` owned by `owner`, in one of `allowed` feeds when
    /// given; nil when none does (a document left by a writer that bypassed the index).
    private func row(
        showing itemID: String, of owner: String, in allowed: Set<Int64>?
    ) throws(StorageError) -> (key: String, item: StoredItem, searchFields: String?)? {
        let sql: String
        if owner.hasPrefix("f") {
            guard let feedID = Int64(owner.dropFirst()), allowed?.contains(feedID) ?? true else { return nil }
            sql = """
                SELECT feed.key, item.item_id, item.position, item.section, item.payload, item.feed_id, feed.search_fields
                FROM item JOIN feed ON feed.id = item.feed_id WHERE item.feed_id = ?2 AND item.item_id = ?1
                """
            return try connection.withStatement(sql) { statement throws(StorageError) in
                try statement.bind(1, itemID)
                try statement.bind(2, feedID)
                return try statement.step() ? Self.searchRow(statement) : nil
            }
        }
        sql = """
            SELECT feed.key, item.item_id, item.position, item.section, item.payload, item.feed_id, feed.search_fields
            FROM item JOIN feed ON feed.id = item.feed_id
            WHERE item.item_id = ?1 AND item.flags & 2 AND feed.shared_type = ?2 AND feed.search_fields IS NOT NULL
            ORDER BY feed.key
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, itemID)
            try statement.bind(2, String(owner.dropFirst()))
            while try statement.step() {
                if allowed?.contains(statement.int64(5)) ?? true { return Self.searchRow(statement) }
            }
            return nil
        }
    }

    private static func searchRow(_ statement: Statement) -> (key: String, item: StoredItem, searchFields: String?) {
        (
            statement.string(0) ?? "",
            StoredItem(
                itemID: statement.string(1) ?? "", position: statement.int64(2), section: statement.string(3),
                payload: statement.data(4) ?? Data()),
            statement.string(6)
        )
    }

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
        // Whether some row of each document reads as its text: a shared item's rows may differ (a
        // feed shows its pending edit), and the document holds the copy written last.
        var readByARow: [Int64: Bool] = [:]
        for feed in try feeds() where feed.searchFields != nil {
            let fields = searchFieldList(feed.searchFields ?? "")
            let sql = """
                SELECT item.payload, search_doc.doc, item_search.body FROM item
                LEFT JOIN search_doc ON search_doc.owner = ?2 AND search_doc.item_id = item.item_id
                LEFT JOIN item_search ON item_search.rowid = search_doc.doc
                WHERE item.feed_id = ?1 AND (?3 IS NULL OR item.position < ?3)
                """
            let rows = try connection.rows(sql, feed.id, Self.searchOwner(of: feed), feed.searchBacklog) { row in
                (payload: row.data(0) ?? Data(), doc: row.isNull(1) ? nil : row.int64(1), body: row.string(2))
            }
            for row in rows {
                let text = SearchText(payload: row.payload, fields: fields)?.indexed
                if let doc = row.doc {
                    readByARow[doc] = (readByARow[doc] ?? false) || (text != nil && text == row.body)
                } else if text != nil {
                    missing += 1
                }
            }
        }
        let stale = readByARow.values.filter { !$0 }.count
        return (Int(try connection.integer(orphans) ?? 0), missing, stale)
    }

    /// Builds the index again from the items: every document goes, and every searchable feed's rows
    /// are indexed; every backlog is done.
    /// - Returns: How many documents the index holds.
    package func rebuildSearchIndex(progress: (Int) -> Void = { _ in }) throws -> Int {
        guard try feeds().contains(where: { $0.searchFields != nil }) || hasSearchTables() else { return 0 }
        try makeSearchTables()
        searchTextToWrite = []
        try connection.run("DELETE FROM search_dirty")
        try connection.run("DELETE FROM item_search")
        try connection.run("DELETE FROM search_doc")
        var indexed = 0
        for feed in try feeds() where feed.searchFields != nil {
            indexed += try indexAllRows(of: feed)
            try connection.run("UPDATE feed SET search_backlog = NULL WHERE id = ?", feed.id)
            progress(indexed)
        }
        return Int(try connection.integer("SELECT count(*) FROM search_doc") ?? 0)
    }
}
