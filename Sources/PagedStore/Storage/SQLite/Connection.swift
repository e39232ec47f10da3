import CSQLite
import Foundation

/// One SQLite connection: opening, configuration, cached statements and transactions.
///
/// A connection is not `Sendable`: exactly one serial owner uses it (the store's writer, or one
/// reader). SQLite is opened with `SQLITE_OPEN_NOMUTEX` because that owner already serializes access.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/open.html>
package final class Connection {
    /// How a connection may touch the file.
    package enum Mode: Sendable {
        /// Reads and writes; creates the file (mode 0600) when it is missing.
        case readWrite
        /// Reads only, and never creates the file or its side files when the file is idle
        /// (see ``Connection/init(path:mode:busyTimeout:probe:)``).
        case readOnly
        /// Reads only, opened with `SQLITE_OPEN_READONLY` whatever state the file is in: for a store
        /// that lives beside the file's writers (an app extension) and must never write, not even the
        /// checkpoint a last connection runs as it closes. On a file whose writers all closed, SQLite
        /// creates the `-wal` and `-shm` a WAL reader needs and leaves them for the next writer.
        case sharedReadOnly
    }

    let handle: OpaquePointer
    /// The path given at open, for messages.
    package let path: String
    /// The file SQLite opened: the path with its folders resolved (see ``ResolvedPath``).
    package let file: String
    /// Whether this open created the file (it was missing).
    package let createdFile: Bool
    /// For a read-only open of a file this process cannot write, read as immutable: the file's stamp
    /// when it was opened, checked after every read transaction (see ``checkStillUnchanged()``).
    let immutableStamp: FileStamp?
    /// The integer in the first column of the probe's first row (nil when it had none): the open's
    /// first read, kept so that a caller probing with a value it needs does not read it twice.
    package private(set) var probeValue: Int64?
    /// How long a statement waits for another connection's lock (SQLite's busy timeout).
    package let busyTimeout: Duration
    private var statements: [String: Statement] = [:]

    /// Opens a connection and runs a first query at once, so that a file which is not a database
    /// fails here with ``StorageError/Kind/notADatabase`` rather than at some later read.
    ///
    /// A read-only connection takes part in SQLite's locking like any reader, so a read transaction
    /// is a consistent snapshot even while another process writes and checkpoints. It never writes:
    /// `PRAGMA query_only` is on. When the file is idle (no `-wal` beside it) it is opened with read-write
    /// access, which lets SQLite create the `-wal` and `-shm` a WAL reader needs and remove them again
    /// when the last connection closes, so an idle file and its folder are left as they were. A file
    /// this process cannot write is read as immutable instead, and each read transaction then checks
    /// that the file did not change while it was read (``StorageError/Kind/busy`` if it did).
    ///
    /// - Parameters:
    ///   - path: A file path. `:memory:` opens a private in-memory database. Paths starting with
    ///     `file:` are refused, because SQLite would read URI parameters (`nolock`, `vfs`) from them.
    ///     Symbolic links in its folders are followed; a symbolic link as the file itself is refused.
    ///   - mode: Read-write (creating the file) or read-only.
    ///   - busyTimeout: How long a statement waits for another connection's lock before failing with
    ///     ``StorageError/Kind/busy``. Finite by design: never an endless retry.
    ///   - probe: The first query, run at once (its prepared statement stays cached for reuse; its
    ///     first value is ``probeValue``).
    /// - Throws: ``StorageError`` when the path is refused, the file cannot be opened (or written, in
    ///   read-write mode), or it is not a database.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/wal.html#readonly>
    package init(
        path: String, mode: Mode, busyTimeout: Duration = .seconds(5),
        probe: String = "SELECT count(*) FROM sqlite_schema"
    ) throws(StorageError) {
        try Self.validate(path: path, mode: mode)
        let file = path == ":memory:" ? path : try ResolvedPath(path).file
        var created = false
        var stamp: FileStamp?
        let opened: OpaquePointer
        switch mode {
        case .readWrite:
            if file != ":memory:" { created = try Self.createPrivateFileIfMissing(file, named: path) }
            opened = try Self.open(file, named: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            // Without write access SQLite falls back to read-only and would leave a `-shm` with the
            // file's read-only mode, which breaks every later writer: refuse before any read.
            if sqlite3_db_readonly(opened, "main") == 1 {
                sqlite3_close_v2(opened)
                throw StorageError(
                    .readOnly,
                    message: "Cannot write \(path): the file is read-only for this user. Nothing was changed")
            }
        case .sharedReadOnly:
            try Self.refuseLogWithoutIndex(file, named: path, within: busyTimeout)
            opened = try Self.open(file, named: path, flags: SQLITE_OPEN_READONLY)
        case .readOnly:
            let hasLog = try Self.refuseLogWithoutIndex(file, named: path, within: busyTimeout)
            if hasLog {
                // A writer is live (or crashed): read through its side files, as any reader does.
                opened = try Self.open(file, named: path, flags: SQLITE_OPEN_READONLY)
            } else {
                // A `-journal` is a rollback-mode writer's (a bulk seed into a new file): live, it is
                // waited for like any lock; left by a crash (hot), SQLite plays it back on the first
                // read, which needs write access, as a WAL reader's recovery does.
                let journal = Self.exists(file + "-journal")
                let idle = try Self.open(file, named: path, flags: SQLITE_OPEN_READWRITE)
                if sqlite3_db_readonly(idle, "main") == 1 && journal {
                    // Without write access a hot journal cannot be played back: SQLite reports it,
                    // where reading the file as immutable would show a half-written transaction.
                    sqlite3_close_v2(idle)
                    opened = try Self.open(file, named: path, flags: SQLITE_OPEN_READONLY)
                } else if sqlite3_db_readonly(idle, "main") == 1 {
                    // No write access: SQLite could only leave side files that nobody can use.
                    sqlite3_close_v2(idle)
                    stamp = FileStamp(file)
                    opened = try Self.open(
                        Self.immutableURI(for: file), named: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
                } else {
                    opened = idle
                }
            }
        }
        self.handle = opened
        self.path = path
        self.file = file
        self.createdFile = created
        self.immutableStamp = stamp
        self.busyTimeout = busyTimeout
        // Before the first statement: creating, migrating and reading all wait for locks alike.
        sqlite3_busy_timeout(handle, Self.milliseconds(busyTimeout))
        // Double-quoted strings as identifiers only: a typo then fails instead of becoming a string.
        _ = csqlite_db_config_int(handle, SQLITE_DBCONFIG_DQS_DML, 0, nil)
        _ = csqlite_db_config_int(handle, SQLITE_DBCONFIG_DQS_DDL, 0, nil)
        // The file's triggers note what writers that bypass PagedStore change under the search
        // index (`search_dirty`, see PageStore+SearchRepair.swift); PagedStore's own writes keep
        // the index themselves and never fire them.
        _ = csqlite_db_config_int(handle, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nil)
        if mode != .readWrite { try execute("PRAGMA query_only = ON") }
        // The first read of the file: a picture or random bytes fail here, at open.
        probeValue = try integer(probe)
    }

    /// Whether `file` has a `-wal` beside it. A `-wal` without its `-shm` is usually a writer closing
    /// (SQLite removes the `-shm` first, then the `-wal`; under heavy I/O the second unlink was seen to
    /// take over a second): wait, within the busy timeout like any lock, for either the log to go or
    /// the index to come; only a `-wal` still alone after that is a copied or crashed cache.
    private static func logIsSettled(_ file: String, within timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while exists(file + "-wal") {
            if exists(file + "-shm") || clock.now >= deadline { return true }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return false
    }

    /// Whether `file` has a settled `-wal` beside it (see ``logIsSettled(_:within:)``); throws when
    /// the log has no `-shm` index, which only a write can rebuild.
    @discardableResult
    private static func refuseLogWithoutIndex(
        _ file: String, named path: String, within timeout: Duration
    ) throws(StorageError) -> Bool {
        let hasLog = logIsSettled(file, within: timeout)
        if hasLog && !exists(file + "-shm") {
            throw StorageError(
                .readOnly,
                message:
                    "\(path) has a write-ahead log without its -shm index (a copied or crashed cache); replaying "
                    + "it needs a write: open it once with the app or run `pagedb migrate --db` on it")
        }
        return hasLog
    }

    private static func open(_ name: String, named path: String, flags: Int32) throws(StorageError) -> OpaquePointer {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(
            name, &handle, flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOFOLLOW, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw StorageError(
                StorageError.Kind(primaryResultCode: code & 0xff), message: "Cannot open \(path): \(message)",
                resultCode: code & 0xff, extendedResultCode: code)
        }
        return handle
    }

    /// For a file read as immutable: throws ``StorageError/Kind/busy`` when the file changed since it
    /// was opened, or a writer's `-wal` appeared, so a read that may have seen pages change fails
    /// instead of returning them.
    package func checkStillUnchanged() throws(StorageError) {
        guard let immutableStamp else { return }
        if FileStamp(file) != immutableStamp || Self.exists(file + "-wal") {
            throw StorageError(
                .busy,
                message:
                    "\(path) changed while it was read (another process wrote it, and this user cannot take part "
                    + "in its locking); read it again")
        }
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: - Running SQL

    /// Runs SQL that returns no rows; it may hold several statements (a migration file).
    package func execute(_ sql: String) throws(StorageError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        sqlite3_free(message)
        if code != SQLITE_OK { throw error(code: code, sql: sql) }
    }

    /// Runs `body` with the cached prepared statement for `sql`, then resets it and clears its bindings.
    package func withStatement<T>(
        _ sql: String, _ body: (Statement) throws(StorageError) -> T
    ) throws(StorageError) -> T {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        return try body(statement)
    }

    /// The first column of the first row of `sql`, as an integer (0 for NULL), or nil when there is
    /// no row. With arguments to bind, ``integer(_:_:)`` says the same in one line.
    package func int64(_ sql: String) throws(StorageError) -> Int64? {
        try withStatement(sql) { statement throws(StorageError) in
            try statement.step() ? statement.int64(0) : nil
        }
    }

    /// The prepared statement for `sql`, prepared once and then reused.
    package func cachedStatement(_ sql: String) throws(StorageError) -> Statement {
        if let statement = statements[sql] { return statement }
        let statement = try Statement(connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    /// The rowid of the row the last INSERT on this connection added.
    package var lastInsertedRowID: Int64 {
        sqlite3_last_insert_rowid(handle)
    }

    package var changes: Int {
        Int(sqlite3_changes64(handle))
    }

    /// `duration` in whole milliseconds, as SQLite's busy timeout takes it (clamped, never trapping).
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? 0 : Int32.max }
        return Int32(clamping: whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).partialValue)
    }

    /// Copies the log into the file without waiting for anyone (`PASSIVE`), then, when every frame
    /// was copied, empties the log file on disk too (`TRUNCATE`), which SQLite otherwise leaves at
    /// its largest size. The truncation is tried with no busy wait: when a reader of another
    /// connection still uses the log, or another writer holds the lock, it gives up at once and the
    /// log stays as the passive checkpoint left it; nobody is blocked, and no reader's snapshot is
    /// disturbed. Does nothing inside a transaction, or on a file without a log.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_wal_checkpoint>
    /// - Returns: Whether the log was emptied.
    @discardableResult
    package func checkpointTruncatingLog() throws(StorageError) -> Bool {
        guard isAutocommit, path != ":memory:" else { return false }
        let passive = try row("PRAGMA wal_checkpoint(PASSIVE)") { ($0.int64(0), $0.int64(1), $0.int64(2)) }
        // Columns: busy, frames in the log (-1 without one), frames copied.
        guard let (busy, frames, copied) = passive, busy == 0, frames >= 0, copied == frames else { return false }
        sqlite3_busy_timeout(handle, 0)
        defer { sqlite3_busy_timeout(handle, Self.milliseconds(busyTimeout)) }
        let truncated = try row("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int64(0) }
        return truncated == 0
    }

    /// Whether no transaction is open (SQLite's own answer, not a guess from an error code).
    package var isAutocommit: Bool {
        sqlite3_get_autocommit(handle) != 0
    }

    // MARK: - Errors

    /// A typed error from the connection's current error state.
    func error(code: Int32, sql: String?) -> StorageError {
        let extended = sqlite3_extended_errcode(handle)
        let primary = code & 0xff
        return StorageError(
            StorageError.Kind(primaryResultCode: primary), message: String(cString: sqlite3_errmsg(handle)),
            resultCode: primary, extendedResultCode: extended, sql: sql)
    }

    // MARK: - Opening

    private static func validate(path: String, mode: Mode) throws(StorageError) {
        if path.isEmpty {
            throw StorageError(.invalidArgument, message: "The database path is empty")
        }
        if path.lowercased().hasPrefix("file:") {
            throw StorageError(
                .invalidArgument,
                message: "Refusing \(path): paths starting with file: are SQLite URIs; give a plain file path")
        }
        if path == ":memory:" { return }
        // stat(2) itself, as FileManager's fileExists does (links followed), without its overhead
        // on every cold open.
        var info = stat()
        let exists = stat(path, &info) == 0
        if exists && info.st_mode & S_IFMT == S_IFDIR {
            throw StorageError(.cannotOpen, message: "\(path) is a directory, not a database file")
        }
        if !exists && mode != .readWrite {
            throw StorageError(.cannotOpen, message: "No database at \(path)")
        }
    }

    /// A `file:` URI that opens `path` as immutable, with every special character percent-encoded
    /// so that nothing in the path can be read as a URI parameter.
    private static func immutableURI(for path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "/-._~")
        let encoded = absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute
        return "file:\(encoded)?immutable=1"
    }
}

// A connection belongs to one serial owner.
@available(*, unavailable)
extension Connection: Sendable {}
