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
        /// (see ``Connection/init(path:mode:busyTimeout:)``).
        case readOnly
    }

    let handle: OpaquePointer
    /// The path given at open, for messages.
    package let path: String
    private var statements: [String: Statement] = [:]

    /// Opens a connection and runs a first query at once, so that a file which is not a database
    /// fails here with ``StorageError/Kind/notADatabase`` rather than at some later read.
    ///
    /// A read-only open of a file whose write-ahead log is absent (nobody has it open, or the last
    /// connection closed cleanly) reads it as immutable: SQLite then creates no `-wal` or `-shm`
    /// file beside it, so looking at a cache leaves the folder exactly as it was.
    ///
    /// - Parameters:
    ///   - path: A file path. `:memory:` opens a private in-memory database. Paths starting with
    ///     `file:` are refused, because SQLite would read URI parameters (`nolock`, `vfs`) from them.
    ///   - mode: Read-write (creating the file) or read-only.
    ///   - busyTimeout: How long a statement waits for another connection's lock before failing with
    ///     ``StorageError/Kind/busy``. Finite by design: never an endless retry.
    /// - Throws: ``StorageError`` when the path is refused, the file cannot be opened, or it is not a database.
    ///   - probe: The first query, run at once (its prepared statement stays cached for reuse).
    package init(
        path: String, mode: Mode, busyTimeout: Duration = .seconds(5),
        probe: String = "SELECT count(*) FROM sqlite_schema"
    ) throws(StorageError) {
        try Self.validate(path: path, mode: mode)
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOFOLLOW
        var openName = path
        switch mode {
        case .readWrite:
            flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
            try Self.createPrivateFileIfMissing(path)
        case .readOnly:
            flags |= SQLITE_OPEN_READONLY
            let hasLog = FileManager.default.fileExists(atPath: path + "-wal")
            if hasLog && !FileManager.default.fileExists(atPath: path + "-shm") {
                throw StorageError(
                    .readOnly,
                    message:
                        "\(path) has a write-ahead log without its -shm index (a copied or crashed cache); replaying "
                        + "it needs a write: open it once with the app or run `pagedb migrate --db` on it")
            }
            if !hasLog {
                flags |= SQLITE_OPEN_URI
                openName = Self.immutableURI(for: path)
            }
        }
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(openName, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw StorageError(
                StorageError.Kind(primaryResultCode: code & 0xff), message: "Cannot open \(path): \(message)",
                resultCode: code & 0xff, extendedResultCode: code)
        }
        self.handle = handle
        self.path = path
        let milliseconds =
            busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
        // Double-quoted strings as identifiers only: a typo then fails instead of becoming a string.
        _ = csqlite_db_config_int(handle, SQLITE_DBCONFIG_DQS_DML, 0, nil)
        _ = csqlite_db_config_int(handle, SQLITE_DBCONFIG_DQS_DDL, 0, nil)
        // The first read of the schema: a picture or random bytes fail here, at open.
        try withStatement(probe) { statement throws(StorageError) in _ = try statement.step() }
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

    /// The first column of the first row of `sql`, as an integer, or nil when there is no row.
    package func int64(
        _ sql: String, bind: (Statement) throws(StorageError) -> Void = { _ in }
    ) throws(StorageError)
        -> Int64?
    {
        try withStatement(sql) { statement throws(StorageError) in
            try bind(statement)
            return try statement.step() ? statement.int64(0) : nil
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
    package var changes: Int {
        Int(sqlite3_changes64(handle))
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
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists && isDirectory.boolValue {
            throw StorageError(.cannotOpen, message: "\(path) is a directory, not a database file")
        }
        if !exists && mode == .readOnly {
            throw StorageError(.cannotOpen, message: "No database at \(path)")
        }
    }

    /// Creates a missing file with mode 0600, so the cache and its `-wal`/`-shm` files (which copy the
    /// database's permissions) are readable by the app's user only. SQLite would use 0644.
    private static func createPrivateFileIfMissing(_ path: String) throws(StorageError) {
        guard path != ":memory:", !FileManager.default.fileExists(atPath: path) else { return }
        let created = FileManager.default.createFile(
            atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        if !created {
            throw StorageError(
                .cannotOpen, message: "Cannot create \(path): check that its folder exists and is writable")
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
