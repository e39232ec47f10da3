/// An error from the SQLite cache file, typed so that an app can act on it.
///
/// Match on ``kind`` to decide what to do:
///
/// ```swift
/// do {
///     let store = try FeedStore(path: cacheURL.path)
/// } catch let error as StorageError where error.kind == .notADatabase || error.kind == .corrupt {
///     // A cache can always be rebuilt: move the damaged file aside and start again.
///     try FeedStore.discardDamagedCache(at: cacheURL.path)
/// }
/// ```
///
/// The ``description`` names the result code, SQLite's message and the SQL, but never the values
/// bound to it: cursors and payloads can carry tokens and personal data.
///
/// Related SQLite documentation: <https://www.sqlite.org/rescode.html>
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in the terms a caller can act on.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// The file is not a SQLite database (a picture, random bytes, a truncated header).
        case notADatabase
        /// The file is a SQLite database, but its content is damaged.
        case corrupt
        /// The file is a SQLite database that belongs to something else (it has tables but no PagedStore schema).
        case foreignDatabase
        /// The disk, or the size limit set on the file, is full. Trimming a feed frees room.
        case storageFull
        /// Another connection held a lock for longer than the busy timeout.
        case busy
        /// The file was written by a newer PagedStore; this version leaves it untouched.
        case schemaTooNew
        /// The file has an older schema and was opened read-only (``FeedStore/init(path:busyTimeout:readOnly:changeRecordLimit:budget:)``),
        /// which never migrates: the app (a writer) migrates it when it next opens the file.
        case schemaTooOld
        /// The file or its folder cannot be opened (missing, a directory, no permission).
        case cannotOpen
        /// The file was opened read-only and a write was attempted, or the file system is read-only.
        case readOnly
        /// A constraint of the schema refused a write (for example an id twice in a feed).
        case constraint
        /// The path or an argument was refused before SQLite saw it.
        case invalidArgument
        /// The store was closed (``FeedStore/close()``): its feeds no longer read or write the file.
        case closed
        /// Any other SQLite failure; see ``StorageError/resultCode`` and ``StorageError/message``.
        case other
    }

    /// What went wrong, in the terms a caller can act on.
    public let kind: Kind
    /// SQLite's primary result code, or 0 when the error did not come from SQLite.
    public let resultCode: Int32
    /// SQLite's extended result code, or 0 when the error did not come from SQLite.
    public let extendedResultCode: Int32
    /// SQLite's message, or PagedStore's own explanation.
    public let message: String
    /// The SQL that failed, if any. Bound values are never part of it.
    public let sql: String?

    /// Creates an error; PagedStore builds these, apps normally only read them.
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - message: A sentence a person can act on.
    ///   - resultCode: SQLite's primary result code, when there is one.
    ///   - extendedResultCode: SQLite's extended result code, when there is one.
    ///   - sql: The statement that failed, without its bound values.
    public init(
        _ kind: Kind, message: String, resultCode: Int32 = 0, extendedResultCode: Int32 = 0, sql: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.resultCode = resultCode
        self.extendedResultCode = extendedResultCode
        self.sql = sql
    }

    /// One line: what happened, the SQLite codes and the SQL, with no bound values.
    public var description: String {
        var text = message
        if resultCode != 0 {
            text += " (SQLite error \(resultCode), extended \(extendedResultCode))"
        }
        if let sql {
            text += " while executing `\(sql)`"
        }
        return text
    }
}

extension StorageError {
    /// What every use of a closed store throws (see ``FeedStore/close()``).
    static var closed: StorageError {
        StorageError(
            .closed, message: "The store was closed (FeedStore.close()); open a new FeedStore to use the cache")
    }

    /// What every write of a read-only store throws (see ``FeedStore/init(path:busyTimeout:readOnly:changeRecordLimit:budget:)``),
    /// before it fetches or begins a transaction.
    static var readOnlyStore: StorageError {
        StorageError(
            .readOnly,
            message:
                "The store was opened read-only (FeedStore(path:readOnly: true)): it shows and follows the cache "
                + "but never writes it; refresh, load pages and edit in a store that may write")
    }
}

extension StorageError.Kind {
    /// Maps SQLite's primary result code to the kind a caller acts on.
    init(primaryResultCode code: Int32) {
        // Primary codes, from sqlite3.h; kept as literals so that this file needs no C import.
        switch code {
        case 26: self = .notADatabase  // SQLITE_NOTADB
        case 11: self = .corrupt  // SQLITE_CORRUPT
        case 13: self = .storageFull  // SQLITE_FULL
        case 5, 6: self = .busy  // SQLITE_BUSY, SQLITE_LOCKED
        case 14: self = .cannotOpen  // SQLITE_CANTOPEN
        case 8: self = .readOnly  // SQLITE_READONLY
        case 19: self = .constraint  // SQLITE_CONSTRAINT
        default: self = .other
        }
    }
}
