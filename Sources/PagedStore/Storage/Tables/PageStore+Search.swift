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
    /// ``SearchSegmentation``). `unicode61` with `remove_diacritics 2` folds case and accents. The
    /// index of three-letter prefixes holds, for each, the documents of every word it opens, so
    /// that a word being typed reads its newest matches at once (see ``SearchRanking``) where FTS5
    /// would otherwise merge every such word's documents first (15 ms for a prefix that opens a
    /// third of a million posts). It costs a searchable row's write about 7 us (measured by hand) and
    /// the index about a fifth more bytes (311 MB against 254 for a million posts); a file indexed
    /// without it gains it at `pagedb reindex`.
    static let searchTablesSQL = """
        CREATE TABLE IF NOT EXISTS search_doc (
            doc INTEGER PRIMARY KEY,
            owner TEXT NOT NULL,
            item_id TEXT NOT NULL,
            UNIQUE (owner, item_id)
        ) STRICT;
        CREATE VIRTUAL TABLE IF NOT EXISTS item_search USING fts5(
            body, tokenize = '\(searchTokenizer)', prefix = '3');
        """ + searchRepairSQL

    /// How the full-text table reads text into words (see ``searchTablesSQL``).
    static let searchTokenizer = "unicode61 remove_diacritics 2"

    /// Whether the file has the index's tables. Asked of the file, not remembered by the store:
    /// another process may have made them, and a transaction that made them may have rolled back.
    /// A write holds the file's lock, so it asks once per write (``writing(_:)`` forgets the answer).
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
        searchablePeersInThisWrite = [:]
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
    /// goes when the payload holds no searchable text. A shared item's one document holds what
    /// every row of it shows (see ``sharedDocumentText(of:sharedAs:known:excluding:)``). Nothing for
    /// a feed that is not searchable.
    func indexForSearch(_ itemID: String, payload: Data, in feed: FeedRecord) throws(StorageError) {
        guard let recorded = feed.searchFields, try hasSearchTables() else { return }
        let text: String?
        if let type = feed.sharedType {
            text = try sharedDocumentText(of: itemID, sharedAs: type, known: (payload, recorded, feed.id))
        } else {
            text = SearchText(payload: payload, fields: searchFieldList(recorded))?.indexed
        }
        try writeSearchDocument(owner: Self.searchOwner(of: feed), itemID: itemID, text: text)
    }

    /// Makes the document of `owner`'s item `itemID` hold `text`, or removes it for nil.
    func writeSearchDocument(owner: String, itemID: String, text: String?) throws(StorageError) {
        guard let text else { return try removeSearchDocument(owner: owner, itemID: itemID) }
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
        // A write may index one document several times (a shared item's copy in each feed): the
        // full-text table gets its last text once.
        if let earlier = searchTextSlots[doc] {
            searchTextToWrite[earlier].body = text
        } else {
            searchTextSlots[doc] = searchTextToWrite.count
            searchTextToWrite.append((doc, text))
        }
        if connection.isAutocommit { try writeSearchText() }
    }

    /// The text of the shared item's one document: what the rows of every searchable feed sharing
    /// it as `type` show (see ``SharedSearchDocument``), but those of the feed `excluded` (rows
    /// about to go), in the order of their feeds' ids so that the same rows give the same text.
    /// - Parameter known: A payload of the item just written, its feed's recorded fields and the
    ///   feed: rows holding the same bytes are not read into text again (a copy is the same in
    ///   every feed nearly always), and its text stands alone when no other searchable feed shares
    ///   the type, or no row of the item is found (a row a writer by hand left unmarked as shared).
    func sharedDocumentText(
        of itemID: String, sharedAs type: String, known: (payload: Data, fields: String, feedID: Int64?)? = nil,
        excluding excluded: Int64? = nil
    ) throws(StorageError) -> String? {
        // A feed alone with its shared type (the common case) holds the item's one row: the text
        // written is the document's, with no look-up of other rows.
        let knownText = known.flatMap { SearchText(payload: $0.payload, fields: searchFieldList($0.fields))?.indexed }
        if let known, excluded == nil, let writer = known.feedID, try !hasSearchablePeers(writer, sharedAs: type) {
            return knownText
        }
        // The partial index is used only when the query says its condition (flags & 2).
        let sql = """
            SELECT item.payload, feed.search_fields FROM item JOIN feed ON feed.id = item.feed_id
            WHERE item.item_id = ?1 AND item.flags & 2 AND feed.shared_type = ?2
                AND feed.search_fields IS NOT NULL AND item.feed_id IS NOT ?3
            ORDER BY item.feed_id
            """
        var texts: [String?] = []
        try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, itemID)
            try statement.bind(2, type)
            try statement.bind(3, excluded)
            while try statement.step() {
                let (payload, fields) = (statement.data(0) ?? Data(), statement.string(1) ?? "")
                if let known, known.payload == payload, known.fields == fields {
                    texts.append(knownText)
                } else {
                    texts.append(SearchText(payload: payload, fields: searchFieldList(fields))?.indexed)
                }
            }
        }
        if texts.isEmpty, known != nil { return knownText }
        return SharedSearchDocument.text(of: texts)
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
        searchTextSlots = [:]
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
        defer {
            (searchTextToWrite, searchTextSlots, searchTablesInThisWrite, isWriting) = ([], [:], nil, false)
            (searchablePeersInThisWrite, pageGroupTriggersInThisWrite, pageGroupFeedsInThisWrite) = ([:], nil, [:])
        }
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
        try keepSharedDocumentsShown(leaving: feed, from: from, through: through)
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

    /// Makes each shared item's document among the rows of `feed` in `from...through`, which stays
    /// because another feed still holds the item, hold only what the remaining rows show: the
    /// leaving row's text may be the document's alone (a feed's pending insert of an item another
    /// feed holds keeps its draft, see ``SharedSearchDocument``), and once its row goes (rolled
    /// back, removed, trimmed) no row would show it.
    private func keepSharedDocumentsShown(leaving feed: FeedRecord, from: Int64, through: Int64) throws(StorageError) {
        guard let type = feed.sharedType else { return }
        // A bounded batch at a time, by position: a feed cleared whole may hold a million rows.
        let sql = """
            SELECT item.position, item.item_id, item_search.body FROM item
            JOIN search_doc ON search_doc.owner = ?1 AND search_doc.item_id = item.item_id
            JOIN item_search ON item_search.rowid = search_doc.doc
            WHERE item.feed_id = ?2 AND item.position BETWEEN ?3 AND ?4 ORDER BY item.position LIMIT ?5
            """
        let owner = Self.searchOwner(of: feed)
        var start = from
        while true {
            let batch = try connection.rows(sql, owner, feed.id, start, through, Self.rowsPerSharedDocumentBatch) {
                row in (position: row.int64(0), itemID: row.string(1) ?? "", body: row.string(2))
            }
            for document in batch {
                // Nil, when no other row has text: the document goes.
                let text = try sharedDocumentText(of: document.itemID, sharedAs: type, excluding: feed.id)
                guard text != document.body else { continue }
                try writeSearchDocument(owner: owner, itemID: document.itemID, text: text)
            }
            try writeSearchText()
            guard batch.count == Self.rowsPerSharedDocumentBatch, let last = batch.last?.position, last < through
            else { return }
            start = last + 1
        }
    }

    /// Whether a searchable feed other than `feedID` shares its items as `type`: asked once per
    /// write (a feed that gains the type or its fields in the write asks again), and each time
    /// outside one.
    func hasSearchablePeers(_ feedID: Int64, sharedAs type: String) throws(StorageError) -> Bool {
        if let known = searchablePeersInThisWrite[feedID] { return known }
        let has = try hasOtherFeeds(sharedAs: type, except: feedID, searchable: true)
        if isWriting { searchablePeersInThisWrite[feedID] = has }
        return has
    }

    /// How many leaving rows ``keepSharedDocumentsShown(leaving:from:through:)`` reads at once.
    static let rowsPerSharedDocumentBatch = 1_000

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
