import Foundation

/// The storage API of the cache: feeds, pages, items and gaps over one SQLite connection.
///
/// All SQL of PagedStore lives in this type and its extensions; the engine and `pagedb` speak in
/// feeds, pages and items. Every operation that writes is atomic: callers run it inside
/// ``Connection/writeTransaction(_:)`` (through ``DatabaseQueue/write(_:)``), so a crash leaves the
/// file at the last committed page.
package final class PageStore {
    /// The distance between the positions of neighbouring rows written in one page. Leaves room to
    /// insert rows locally between two rows without renumbering the feed.
    package static let positionStep: Int64 = 1 << 16

    /// The connection every operation uses.
    package let connection: Connection
    /// The schema status found when the file was opened (before any migration).
    package let statusAtOpen: SchemaStatus
    /// Whether payloads are bound as TEXT (the JSON codec, readable with `sqlite3`) or as BLOB.
    package var textPayloads = true
    /// The pages the running write deleted rows from, by feed id, and the one empty page of a feed
    /// without rows that it added a page to: before the write commits, the ones with no rows go as
    /// ``EmptyPageRule`` says (see ``EmptyPages``), so that page rows never pile up.
    var pagesLosingRows: [Int64: Set<Int64>] = [:]
    /// The searchable fields of each recorded declaration, decoded once per store.
    var searchFieldCache: [String: [String]] = [:]
    /// The running write's index text, written to the full-text table together before it commits
    /// (see ``writeSearchText()``).
    var searchTextToWrite: [(doc: Int64, body: String)] = []
    /// Where each document of ``searchTextToWrite`` stands in it.
    var searchTextSlots: [Int64: Int] = [:]
    /// Whether the file has the index's tables, as the running write found: nil outside a write,
    /// and until it asked (see ``hasSearchTables()``).
    var searchTablesInThisWrite: Bool?
    /// Whether the file has the triggers that guard the page groups, and which feeds have groups, as
    /// the running write found: unknown outside a write, and until it asked (see
    /// ``hasPageGroupTriggers()``).
    var pageGroupTriggersInThisWrite: Bool?
    var pageGroupFeedsInThisWrite: [Int64: Bool] = [:]
    /// Whether the schema had those triggers, and the schema's version it was read at.
    var pageGroupTriggersInSchema: (version: Int64, has: Bool)?
    /// Whether a write runs (see ``writing(_:)``).
    var isWriting = false
    /// For each feed of a shared searchable type the running write asked about, whether another
    /// searchable feed shares that type (see ``hasSearchablePeers(_:sharedAs:)``).
    var searchablePeersInThisWrite: [Int64: Bool] = [:]
    /// A connection of its own to a database in memory, where a search reads which of a shared
    /// item's copies its query matches (see ``textsMatching(_:_:)``); made when first needed.
    var searchProbe: Connection?

    /// A payload as this store binds it (see ``textPayloads``), or NULL for none.
    func payload(_ data: Data?) -> SQLValue {
        data.map { .bytes($0, asText: textPayloads) } ?? .null
    }

    /// Opens a cache file, configures the connection and applies pending migrations.
    ///
    /// The order matters for files that must stay untouched: the schema version is read before
    /// anything writes, so a file from a newer PagedStore, or another program's SQLite file, is
    /// refused byte for byte unchanged.
    ///
    /// - Parameters:
    ///   - path: The cache file (created with mode 0600 when missing, in read-write mode), or `:memory:`.
    ///   - mode: Read-write, or read-only (which never creates or changes anything).
    ///   - migrate: Whether to apply pending migrations (read-write only). `pagedb migrate --dry-run`
    ///     opens without migrating.
    ///   - busyTimeout: How long a statement waits for another connection's lock.
    ///   - incrementalVacuum: Whether a new file is created with incremental auto-vacuum, so that free
    ///     pages can be given back in a short write (see ``releaseFreePages()``). Only a store with a
    ///     budget asks: the pointer-map pages it keeps cost writes that grow the B-trees (W5 measured
    ///     5 to 10% slower) and 0.1% of the file.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/notADatabase``, ``StorageError/Kind/schemaTooNew``,
    ///   ``StorageError/Kind/foreignDatabase``, ``StorageError/Kind/cannotOpen`` and the like.
    package init(
        path: String, mode: Connection.Mode = .readWrite, migrate: Bool = true, busyTimeout: Duration = .seconds(5),
        incrementalVacuum: Bool = false
    ) throws {
        let connection = try Connection(path: path, mode: mode, busyTimeout: busyTimeout, probe: Migrator.markerSQL)
        let migrator = Migrator()
        let probe = try Migrator.probe(connection, marker: connection.probeValue)
        let status = migrator.status(of: probe)
        try Migrator.refuse(status, path: path, latest: migrator.latestVersion)
        switch mode {
        case .readWrite:
            // Incremental auto-vacuum, so that a budget can give freed pages back to the file system
            // in a short write. SQLite takes it only before the file's first page is written, which
            // switching to WAL does: so here, on an empty file, before anything else.
            if incrementalVacuum, migrate, status == .empty {
                try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
            }
            // WAL: one writer and concurrent readers, so pagedb can read while an app writes. It is
            // recorded in the file: on a file already in WAL mode the pragma changes nothing and takes
            // no lock, and setting it costs one statement where asking for the mode first cost one more.
            if path != ":memory:" { try connection.enableWAL(timeout: busyTimeout) }
            // NORMAL: a commit does not fsync; a power cut may lose the last commits but never corrupts.
            try connection.execute("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
            if migrate, status != .current { try migrator.migrate(connection) }
        case .readOnly, .sharedReadOnly:
            if migrate, status != .current { throw Self.notReadable(status, path: path) }
        }
        self.connection = connection
        self.statusAtOpen = status
    }

    /// Why a file whose schema is not this build's cannot be read without migrating it first.
    private static func notReadable(_ status: SchemaStatus, path: String) -> StorageError {
        if status == .empty {
            return StorageError(.cannotOpen, message: "\(path) is empty: it is not a PagedStore cache yet")
        }
        return StorageError(
            .schemaTooOld,
            message:
                "\(path) has an older schema, which only a writer migrates; run `pagedb migrate` (or open it "
                + "with the app) first. The file was not changed")
    }

    // MARK: - Feeds

    static let feedColumns = """
        id, key, newest_cursor, oldest_cursor, end_reached, row_count, top_position, bottom_position, \
        last_refresh_at, last_error, generation, loaded, has_sections, policy, change_count, shared_type, \
        search_fields, search_backlog
        """

    // Built once: interpolated on every look-up it cost an allocation on each feed open.
    private static let feedByKeySQL = "SELECT \(feedColumns) FROM feed WHERE key = ?"
    static let feedByIDSQL = "SELECT \(feedColumns) FROM feed WHERE id = ?"

    /// The feed with `key`, or nil when the cache has none.
    package func feed(key: String) throws(StorageError) -> FeedRecord? {
        try Self.feed(key: key, on: connection)
    }

    /// The feed with `key` read on `connection`, one that no `PageStore` owns (a file watcher's), or
    /// nil when the cache has none.
    static func feed(key: String, on connection: Connection) throws(StorageError) -> FeedRecord? {
        // Bound by hand, with no array of arguments: every feed open and every write reads it.
        try connection.withStatement(feedByKeySQL) { statement throws(StorageError) in
            try statement.bind(1, key)
            return try statement.step() ? feedRecord(statement) : nil
        }
    }

    /// The feed with `key`, created empty when missing.
    package func ensureFeed(key: String) throws -> FeedRecord {
        if let feed = try feed(key: key) { return feed }
        // A feed made again after a delete may get the old one's id: a change count from a random
        // start keeps a list that held the old feed from taking the new one's recorded changes as
        // its own (the change record chains by id and count).
        try connection.run(
            "INSERT INTO feed (key, change_count) VALUES (?, ?)", key, Int64.random(in: 1..<(1 << 62)))
        guard let feed = try feed(key: key) else {
            throw StorageError(.other, message: "The feed \(key.debugDescription) vanished after it was created")
        }
        return feed
    }

    /// Every feed, ordered by key.
    package func feeds() throws(StorageError) -> [FeedRecord] {
        try connection.rows("SELECT \(Self.feedColumns) FROM feed ORDER BY key", row: Self.feedRecord)
    }

    /// Writes every mutable column of `feed` back to its row, and bumps its change counter (in
    /// `feed` too), so that every other `Feed` of this feed sees that it was written.
    package func save(_ feed: inout FeedRecord) throws(StorageError) {
        // Wrapping: the counter is compared for equality only, and a file may hold any value.
        feed.changeCount &+= 1
        let sql = """
            UPDATE feed SET newest_cursor = ?, oldest_cursor = ?, end_reached = ?, row_count = ?, top_position = ?,
            bottom_position = ?, last_refresh_at = ?, last_error = ?, generation = ?, loaded = ?, has_sections = ?,
            policy = ?, change_count = ? WHERE id = ?
            """
        // Every write runs this: bound one by one, with no boxed arguments.
        try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.newestCursor)
            try statement.bind(2, feed.oldestCursor)
            try statement.bind(3, feed.endReached)
            try statement.bind(4, feed.rowCount)
            try statement.bind(5, feed.topPosition)
            try statement.bind(6, feed.bottomPosition)
            try statement.bind(7, feed.lastRefreshAt?.millisecondsSince1970)
            try statement.bind(8, feed.lastError)
            try statement.bind(9, feed.generation)
            try statement.bind(10, feed.loaded)
            try statement.bind(11, feed.hasSections)
            try statement.bind(12, feed.policy)
            try statement.bind(13, feed.changeCount)
            try statement.bind(14, feed.id)
            try statement.step()
        }
    }

    /// Deletes a feed with its pages, items and gaps.
    package func deleteFeed(_ feed: FeedRecord) throws(StorageError) {
        try unindexRows(of: feed)
        try connection.run("DELETE FROM item WHERE feed_id = ?", feed.id)
        try connection.run("DELETE FROM feed_change WHERE feed_id = ?", feed.id)
        try forgetPageGroups(of: feed.id)
        // Pages and gaps follow through their foreign keys' ON DELETE CASCADE.
        try connection.run("DELETE FROM feed WHERE id = ?", feed.id)
    }

    /// Deletes every row, page and gap of the feed, and its rows of `tables`, with what is kept of
    /// them elsewhere: their search documents and the feed's page groups.
    func deleteRowsPagesAndGaps(of feed: FeedRecord, alsoFrom tables: [String] = []) throws(StorageError) {
        try unindexRows(of: feed)
        try forgetPageGroups(of: feed.id)
        for table in ["item", "page", "gap"] + tables {
            try connection.run("DELETE FROM \(table) WHERE feed_id = ?", feed.id)
        }
    }

    /// Empties a feed as if it had never been fetched: its rows, pages, gaps and reading position go,
    /// its cursors and states are reset. Its key, generation, policy and change count stay (the save
    /// counts this change too). Its pending edits stay: what becomes of them is the caller's rule.
    package func clearFeed(_ feed: inout FeedRecord) throws(StorageError) {
        if feed.searchBacklog != nil { try setSearchBacklog(nil, of: &feed) }
        try deleteRowsPagesAndGaps(of: feed, alsoFrom: ["reading_position"])
        feed = FeedRecord(
            id: feed.id, key: feed.key, newestCursor: nil, oldestCursor: nil, endReached: false, rowCount: 0,
            topPosition: nil, bottomPosition: nil, lastRefreshAt: nil, lastError: nil, generation: feed.generation,
            loaded: false, hasSections: false, policy: feed.policy, changeCount: feed.changeCount,
            sharedType: feed.sharedType, searchFields: feed.searchFields)
        try save(&feed)
    }

    static func feedRecord(_ statement: Statement) -> FeedRecord {
        FeedRecord(
            id: statement.int64(0), key: statement.string(1) ?? "", newestCursor: statement.string(2),
            oldestCursor: statement.string(3), endReached: statement.int64(4) != 0,
            // A count edited below zero is read as zero: a collection can never be negative.
            rowCount: max(statement.int(5), 0),
            topPosition: statement.isNull(6) ? nil : statement.int64(6),
            bottomPosition: statement.isNull(7) ? nil : statement.int64(7),
            lastRefreshAt: statement.isNull(8) ? nil : Date(millisecondsSince1970: statement.int64(8)),
            lastError: statement.string(9), generation: statement.int64(10), loaded: statement.int64(11) != 0,
            hasSections: statement.int64(12) != 0, policy: statement.string(13),
            changeCount: statement.int64(14), sharedType: statement.string(15), searchFields: statement.string(16),
            searchBacklog: statement.isNull(17) ? nil : statement.int64(17))
    }
}

// A store wraps one connection, which belongs to one serial owner.
@available(*, unavailable)
extension PageStore: Sendable {}
