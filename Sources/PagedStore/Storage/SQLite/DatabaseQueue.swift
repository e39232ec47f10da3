import Foundation

/// Serialized access to one ``PageStore``: the single writer of a cache file.
///
/// SQLite in WAL mode allows one writer and any number of readers. PagedStore keeps one writing
/// connection per file and process, and this queue makes every use of it exclusive, so connections
/// themselves never need to be `Sendable`. Readers in other processes (`pagedb`) or on their own
/// connections read committed pages while the writer works.
package final class DatabaseQueue: @unchecked Sendable {
    // @unchecked: `openStore` is only touched while `lock` is held.
    private let lock = NSLock()
    /// The store, until ``close()``: releasing it closes the connection, so the file can be deleted or
    /// moved while feeds of the store still exist.
    private var openStore: PageStore?
    /// What ``close()`` calls, by the id ``onClose(_:)`` gave: the waits of fetches in flight.
    private var closeHandlers: [Int: @Sendable () -> Void] = [:]
    private var nextCloseHandler = 0
    /// Write transactions run on this connection, which SQLite's `data_version` does not count.
    private var localWrites = 0
    /// Where the feeds of this store run (see ``StorageExecutor``).
    let executor: StorageExecutor
    /// The file the queue writes, as every store on it in this process sees it.
    package let file: FileIdentity?
    /// The file's path as SQLite opened it, folders resolved.
    package let resolvedPath: String
    /// How many writes the file's change record keeps (see ``ChangeRecordRetention``).
    package let changeRecordLimit: Int
    /// How many writes the change record keeps unless the store says otherwise.
    package static let defaultChangeRecordLimit = 1000
    /// Whether the queue was opened read-only: every write then throws before it begins.
    package let isReadOnly: Bool

    /// Opens (creating and migrating) the cache at `path`; see ``PageStore/init(path:mode:migrate:busyTimeout:incrementalVacuum:)``.
    package init(
        path: String, mode: Connection.Mode = .readWrite, migrate: Bool = true, busyTimeout: Duration = .seconds(5),
        changeRecordLimit: Int = DatabaseQueue.defaultChangeRecordLimit, incrementalVacuum: Bool = false
    ) throws {
        let store = try PageStore(
            path: path, mode: mode, migrate: migrate, busyTimeout: busyTimeout, incrementalVacuum: incrementalVacuum)
        openStore = store
        executor = StorageExecutor(label: "PagedStore.storage")
        file = FileIdentity(path: path)
        resolvedPath = store.connection.file
        self.changeRecordLimit = changeRecordLimit
        isReadOnly = mode != .readWrite
    }

    deinit {
        executor.stop()
    }

    /// Closes the connection; every later use throws ``StorageError/Kind/closed``. Closing twice is
    /// closing once.
    package func close() {
        let handlers = lock.withLock {
            openStore = nil
            defer { closeHandlers = [:] }
            return closeHandlers.values
        }
        for handler in handlers { handler() }
    }

    /// Has ``close()`` call `handler` (once, after the connection is closed), so that what waits for
    /// something outside the store (a fetch) stops waiting when the store closes.
    /// - Returns: The id for ``removeCloseHandler(_:)``, or nil when the queue is closed already
    ///   (`handler` is then not called).
    package func onClose(_ handler: @escaping @Sendable () -> Void) -> Int? {
        lock.withLock {
            guard openStore != nil else { return nil }
            nextCloseHandler += 1
            closeHandlers[nextCloseHandler] = handler
            return nextCloseHandler
        }
    }

    /// Forgets a handler of ``onClose(_:)``: what it ended is over.
    package func removeCloseHandler(_ id: Int) {
        _ = lock.withLock { closeHandlers.removeValue(forKey: id) }
    }

    /// Whether ``close()`` was called.
    package var isClosed: Bool {
        lock.withLock { openStore == nil }
    }

    /// The open store; call with `lock` held.
    private func store() throws -> PageStore {
        guard let openStore else { throw StorageError.closed }
        return openStore
    }

    /// Runs `body` inside one write transaction: everything it writes commits together or not at all.
    /// - Throws: ``StorageError/readOnlyStore`` on a read-only queue, before any transaction begins.
    package func write<T>(_ body: (PageStore) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let store = try store()
        if isReadOnly { throw StorageError.readOnlyStore }
        localWrites &+= 1
        return try store.connection.writeTransaction { try store.writing { try body(store) } }
    }

    /// What has been committed to the file, as far as one cheap look tells: two equal marks mean
    /// that nobody wrote the file in between, through this connection or any other.
    package struct WriteMark: Equatable, Sendable {
        /// SQLite's `PRAGMA data_version`: changes when another connection committed.
        var dataVersion: Int64
        /// Write transactions run through this queue (other feeds of the same store).
        var localWrites: Int
    }

    /// The file's current ``WriteMark``: one statement, that reads no page of the database.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_data_version>
    package func writeMark() throws -> WriteMark {
        lock.lock()
        defer { lock.unlock() }
        let store = try store()
        return try store.connection.readStatement { try mark(of: store) }
    }

    /// The ``WriteMark`` the running write leaves the file at: what ``writeMark()`` reads once it
    /// committed, until someone writes again. Call only inside the body of ``write(_:)``, whose
    /// lock it relies on: no other connection commits while this one holds the write lock, and a
    /// connection's own commit does not change its `data_version`.
    package func markOfRunningWrite(in store: PageStore) throws -> WriteMark {
        try mark(of: store)
    }

    /// The mark as `store`'s connection sees it now; call with `lock` held.
    private func mark(of store: PageStore) throws -> WriteMark {
        let version = try store.connection.int64("PRAGMA data_version")
        return WriteMark(dataVersion: version ?? 0, localWrites: localWrites)
    }

    /// Runs `body` inside one write transaction, as ``write(_:)``, with a rollback journal instead of the
    /// log when the file holds no items yet and no other connection has it open (see
    /// ``Connection/withRollbackJournal(_:)``): for writing a whole new cache (a bulk seed),
    /// whose pages then reach the file once instead of through the log and its checkpoint.
    package func writeFillingEmptyFile<T>(_ body: (PageStore) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let store = try store()
        if isReadOnly { throw StorageError.readOnlyStore }
        let connection = store.connection
        localWrites &+= 1
        // A file with items may have readers (an app) that must keep reading while this writes.
        guard try connection.int64("SELECT EXISTS (SELECT 1 FROM item)") == 0 else {
            return try connection.writeTransaction { try store.writing { try body(store) } }
        }
        return try connection.withRollbackJournal {
            try connection.writeTransaction { try store.writing { try body(store) } }
        }
    }

    /// Runs `body` with the store outside any transaction: for work that manages its own, such as
    /// the migrator (each migration is its own transaction).
    package func withoutTransaction<T>(_ body: (PageStore) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(try store())
    }

    /// Runs `body`, which reads with exactly one statement, without an explicit transaction.
    ///
    /// SQLite runs a lone statement in its own read transaction, which is already one committed state
    /// of the file; the BEGIN and ROLLBACK that ``read(_:)`` adds around it cost two more statements
    /// on every window read (a scroll step, a deep page). A body that runs two statements must use
    /// ``read(_:)``: each statement here may see a different state.
    package func readStatement<T>(_ body: (PageStore) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let store = try store()
        return try store.connection.readStatement { try body(store) }
    }

    /// Runs `body` inside one read transaction, so all its reads see the same committed state.
    package func read<T>(_ body: (PageStore) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let store = try store()
        return try store.connection.readTransaction { try body(store) }
    }
}
