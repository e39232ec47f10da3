import CSQLite
import Foundation

/// A program that writes a cache file with SQLite directly, as `sqlite3` by hand or another
/// SQLite library would: its own connection, SQLite's defaults (triggers on), none of PagedStore's
/// code.
public enum ForeignWriter {
    /// What SQLite said when a statement failed.
    public struct Failure: Error, CustomStringConvertible {
        /// SQLite's message.
        public let description: String
    }

    /// Runs `sql` (one or more statements) on the file at `path`, then closes the connection.
    public static func execute(_ sql: String, on path: String) throws {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw Failure(description: "cannot open \(path)")
        }
        sqlite3_busy_timeout(handle, 5_000)
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            defer { sqlite3_free(message) }
            throw Failure(description: message.map { String(cString: $0) } ?? "failed")
        }
    }
}
