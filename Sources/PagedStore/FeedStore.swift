import Foundation

/// A cache file and the feeds in it: the entry point of PagedStore.
///
/// ```swift
/// let store = try FeedStore(path: cachesURL.appendingPathComponent("feeds.sqlite").path)
/// let home = try store.feed("home", source: TimelineSource(), policy: FeedPolicy(gapPolicy: .keepGap))
/// ```
///
/// One store per file and process: it owns the file's single writing connection, which every
/// feed of the store shares. Other processes (an app extension, `pagedb`) may open the same file.
public final class FeedStore: Sendable {
    /// The cache file's path (`:memory:` for an in-memory store).
    public let path: String
    /// The store's one write path, which keeps the file within its budget.
    let writer: StoreWriter
    var queue: DatabaseQueue { writer.queue }
    /// The store's durable outbox: register how each kind of queued edit reaches its server, and
    /// observe the edits waiting (see ``Outbox``). A read-only store's outbox sends nothing.
    public let outbox: Outbox

    /// Opens the cache at `path`, creating it (readable by the user only) and migrating its schema;
    /// or, with `readOnly`, a store that only shows and follows what others write (a widget, an app
    /// extension).
    ///
    /// ```swift
    /// // In a widget: show the app's cache, follow its writes, never write.
    /// let store = try FeedStore(path: sharedCachePath, readOnly: true)
    /// ```
    ///
    /// A read-only store never creates, migrates or writes the file (SQLite opens it with
    /// `SQLITE_OPEN_READONLY`; on a file whose writers all closed it may create the `-wal` and `-shm`
    /// that reading needs, and leaves them to the next writer). Its feeds show the cached rows and
    /// follow other writers live, as any feed does; a feed the file does not have shows empty until a
    /// writer creates it. ``Feed/start()`` fetches nothing; ``Feed/refresh()``,
    /// ``Feed/loadNextPage()`` and ``Feed/loadGap(_:from:)`` fail in their activity, and edits and
    /// trims throw, without fetching: a ``FeedError`` whose ``FeedError/storageKind`` is
    /// ``StorageError/Kind/readOnly``. The reading position is not saved, a failure is not recorded
    /// in the file, and rows the codec cannot decode stay in the file (the window stops above them).
    ///
    /// - Parameters:
    ///   - path: The cache file.
    ///   - busyTimeout: How long a statement waits for another process's lock (an app extension writing
    ///     the same file) before failing with ``StorageError/Kind/busy``. Default 5 seconds.
    ///   - readOnly: Whether the store only reads. Default false.
    ///   - changeRecordLimit: How many writes the file's change record keeps (the store's newest):
    ///     an open list that missed more (in a process that was suspended while an extension wrote)
    ///     follows with one full reload instead of the exact change. Default 1,000, a few hundred
    ///     kilobytes at most; a writer applies its own limit.
    ///   - budget: How large the file may grow and how long a feed nobody opens is kept (see
    ///     ``StoreBudget`` and <doc:StoreBudgets>). Nil, the default, lets the file grow. A read-only
    ///     or in-memory store ignores it.
    /// - Throws: ``StorageError``: ``StorageError/Kind/notADatabase`` or ``StorageError/Kind/corrupt``
    ///   for a damaged file (see ``discardDamagedCache(at:)``), ``StorageError/Kind/schemaTooNew`` for a
    ///   file from a newer PagedStore, ``StorageError/Kind/foreignDatabase`` for another program's file.
    ///   Read-only: ``StorageError/Kind/cannotOpen`` for a missing or empty file (nothing is created),
    ///   ``StorageError/Kind/schemaTooOld`` for a file the app has not migrated yet.
    public convenience init(
        path: String, busyTimeout: Duration = .seconds(5), readOnly: Bool = false, changeRecordLimit: Int = 1000,
        budget: StoreBudget? = nil
    ) throws {
        try self.init(
            path: path, busyTimeout: busyTimeout, readOnly: readOnly, changeRecordLimit: changeRecordLimit,
            budget: budget, clock: .system)
    }

    /// Opens the cache at `path` with the time read from `clock` by its feeds, outbox and budget:
    /// for tests, which move time on rather than sleep (see ``StoreClock``).
    package init(
        path: String, busyTimeout: Duration = .seconds(5), readOnly: Bool = false, changeRecordLimit: Int = 1000,
        budget: StoreBudget? = nil, clock: StoreClock
    ) throws {
        try SQLiteLibrary.checkVersion()
        self.path = path
        let queue = try DatabaseQueue(
            path: path, mode: readOnly ? .sharedReadOnly : .readWrite, busyTimeout: busyTimeout,
            changeRecordLimit: changeRecordLimit, incrementalVacuum: budget != nil)
        writer = StoreWriter(queue: queue, budget: budget.map { BudgetKeeper(budget: $0, clock: clock) }, clock: clock)
        outbox = Outbox(store: writer)
    }

    /// The store's budget, if it has one.
    public var budget: StoreBudget? { writer.budget?.budget }

    /// Whether the store only reads (see ``init(path:busyTimeout:readOnly:changeRecordLimit:budget:)``).
    public var isReadOnly: Bool { queue.isReadOnly }

    /// A store that lives in memory only: for SwiftUI previews and tests.
    public static func inMemory() throws -> FeedStore {
        try FeedStore(path: ":memory:")
    }

    /// Opens the feed `key`, whose items are `Codable` and stored as JSON.
    ///
    /// The feed's first snapshot holds the cached rows at once; call ``Feed/start()`` to refresh
    /// according to the policy.
    ///
    /// A cached row the codec cannot decode never stops a feed opening: it is removed and reported
    /// (``FeedEvent/Kind/undecodableRowsRemoved``). See ``FeedPolicy/cacheVersion`` for a model change.
    /// - Throws: ``StorageError`` when the cache cannot be read or written.
    public func feed<Source: PageSource>(
        _ key: String, source: Source, policy: FeedPolicy = FeedPolicy()
    ) throws
        -> Feed<Source.Item> where Source.Item: Codable
    {
        try feed(key, source: source, policy: policy, codec: .json)
    }

    /// Opens the feed `key` with an item codec of the app's choice.
    ///
    /// A cached row the codec cannot decode never stops a feed opening: it is removed and reported
    /// (``FeedEvent/Kind/undecodableRowsRemoved``). See ``FeedPolicy/cacheVersion`` for a model change.
    /// - Throws: ``StorageError`` when the cache cannot be read or written.
    public func feed<Source: PageSource>(
        _ key: String, source: Source, policy: FeedPolicy = FeedPolicy(), codec: ItemCodec<Source.Item>
    ) throws -> Feed<Source.Item> {
        try feed(
            key, source: source, policy: policy, codec: codec, sharedAs: Source.Item.sharedItemType,
            searchableFields: Source.Item.searchableFields)
    }

    /// Opens the feed `key` as the file records it, rather than as the app's types and code declare:
    /// for `pagedb`, whose items are JSON objects of any type. Its items are shared under the
    /// recorded name (``FeedItem/sharedItemType``; none for a feed the file lacks) and searchable by
    /// the recorded fields (``FeedItem/searchableFields``), so that every write spreads its copies
    /// and keeps the search index as the app's own writes do. Its policy is the app's recorded one
    /// (the default for a feed that records none) as `adjust` changes it: the same
    /// ``FeedPolicy/cacheVersion`` keeps the app's rows and edits, where another would clear them
    /// as a model change, and the same limits trim as the app's writes trim. The row keeps the
    /// app's text of its policy, even one this code cannot read.
    package func feedAsRecorded<Source: PageSource>(
        _ key: String, source: Source, codec: ItemCodec<Source.Item>, adjustingPolicy adjust: (inout FeedPolicy) -> Void
    ) throws -> Feed<Source.Item> {
        let recorded = try queue.read { store in
            try store.feed(key: key).map {
                ($0.sharedType, $0.searchFields.map(store.searchFieldList) ?? [], $0.policy)
            }
        }
        var policy = PolicyJSON.shared.policy(recordedIn: recorded?.2) ?? FeedPolicy()
        adjust(&policy)
        return try feed(
            key, source: source, policy: policy, codec: codec, sharedAs: recorded?.0,
            searchableFields: recorded?.1 ?? [], keepsRecordedPolicy: true)
    }

    /// Opens the feed `key` with its items shared under `sharedAs` and searchable by `searchableFields`.
    private func feed<Source: PageSource>(
        _ key: String, source: Source, policy: FeedPolicy, codec: ItemCodec<Source.Item>, sharedAs: String?,
        searchableFields: [String], keepsRecordedPolicy: Bool = false
    ) throws -> Feed<Source.Item> {
        let feed = try Feed(
            key: key, source: source, policy: policy, codec: codec, store: writer, outbox: isReadOnly ? nil : outbox,
            sharedItemType: sharedAs, searchableFields: searchableFields, keepsRecordedPolicy: keepsRecordedPolicy)
        if !isReadOnly {
            // The outcomes of its queued edits go through it while it is open, so that it forgets
            // their changes too. Held weakly: opening a feed never keeps it alive.
            Task { [outbox, weak feed] in
                guard let feed else { return }
                await outbox.opened(feed)
            }
        }
        return feed
    }

    /// Closes the cache file: the store and every feed opened from it stop reading and writing it, so
    /// the app can delete or move the file (on sign-out, say) while references to feeds remain.
    ///
    /// Closing is idempotent. Afterwards, a feed's throwing calls (``Feed/insert(_:at:)``,
    /// ``Feed/update(_:)``, ``Feed/remove(id:)``, ``Feed/trim(maxRows:)``) throw a ``FeedError`` whose
    /// ``FeedError/storageKind`` is ``StorageError/Kind/closed``, and a refresh, next page or gap fill
    /// fails with that error in its activity without fetching. A fetch in flight when the store closes
    /// ends at once, without waiting for the server: its callers return, its activity fails the same
    /// way, and its response, if it comes, is dropped unwritten. Snapshots already emitted stay valid
    /// values.
    ///
    /// ```swift
    /// store.close()
    /// try FileManager.default.removeItem(atPath: store.path)
    /// ```
    public func close() {
        queue.close()
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { queue.isClosed }

    /// Moves a damaged cache file aside, with its `-wal` and `-shm` files, so that a new cache can be
    /// created at `path`: the documented recovery for ``StorageError/Kind/notADatabase`` and
    /// ``StorageError/Kind/corrupt``. A cache holds nothing that cannot be fetched again.
    ///
    /// The three files move together: a `-wal` left beside a new database would be replayed into it.
    /// - Returns: The path the database file was moved to, or nil when there was no file.
    @discardableResult
    public static func discardDamagedCache(at path: String) throws -> String? {
        let manager = FileManager.default
        guard manager.fileExists(atPath: path) else { return nil }
        let stamp = Int(Date().timeIntervalSince1970)
        let aside = "\(path).damaged-\(stamp)"
        for suffix in ["", "-wal", "-shm"] where manager.fileExists(atPath: path + suffix) {
            try manager.moveItem(atPath: path + suffix, toPath: aside + suffix)
        }
        return aside
    }
}
