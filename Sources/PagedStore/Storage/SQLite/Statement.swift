import CSQLite
package import Foundation

/// A prepared SQLite statement with typed binding and column access.
///
/// Statements are cached by their ``Connection`` and reused: ``Connection/withStatement(_:_:)``
/// resets and clears one after each use, so no value bound for one call leaks into the next.
///
/// Related SQLite documentation: <https://www.sqlite.org/c3ref/stmt.html>
package final class Statement {
    let handle: OpaquePointer
    /// The SQL text, kept for error messages (never with its bound values).
    package let sql: String
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws(StorageError) {
        var handle: OpaquePointer?
        // The tail pointer points into the C string, so it is read while that string is alive.
        let (code, hasSecondStatement) = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(
                connection.handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, &tail)
            let rest = tail.map { String(cString: $0) } ?? ""
            return (code, !rest.allSatisfy(\.isWhitespace))
        }
        guard code == SQLITE_OK, let handle else {
            throw connection.error(code: code, sql: sql)
        }
        // One statement per string: a second one would silently never run.
        if hasSecondStatement {
            sqlite3_finalize(handle)
            throw StorageError(.invalidArgument, message: "Only one SQL statement may be prepared at a time", sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: - Binding (1-based, as SQLite counts parameters)

    /// Binds an integer, or NULL when `value` is nil.
    package func bind(_ index: Int32, _ value: Int64?) throws(StorageError) {
        let code = value.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        try check(code)
    }

    /// Binds an integer.
    package func bind(_ index: Int32, _ value: Int) throws(StorageError) {
        try check(sqlite3_bind_int64(handle, index, Int64(value)))
    }

    /// Binds a double, or NULL when `value` is nil.
    package func bind(_ index: Int32, _ value: Double?) throws(StorageError) {
        let code = value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index)
        try check(code)
    }

    /// Binds UTF-8 text, or NULL when `value` is nil.
    package func bind(_ index: Int32, _ value: String?) throws(StorageError) {
        guard var text = value else { return try check(sqlite3_bind_null(handle, index)) }
        let code = text.withUTF8 { utf8 in
            sqlite3_bind_text(
                handle, index, UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self),
                Int32(utf8.count), csqlite_transient())
        }
        try check(code)
    }

    /// Binds bytes as text (the JSON payloads) or as a blob.
    package func bind(_ index: Int32, _ value: Data, asText: Bool) throws(StorageError) {
        let code = value.withUnsafeBytes { bytes -> Int32 in
            // An empty Data may have no base address; SQLite needs a non-null pointer for an empty value.
            let pointer = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
            if asText {
                return sqlite3_bind_text(
                    handle, index, pointer?.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                    csqlite_transient())
            }
            return sqlite3_bind_blob(handle, index, pointer, Int32(bytes.count), csqlite_transient())
        }
        try check(code)
    }

    /// Binds a boolean as 0 or 1.
    package func bind(_ index: Int32, _ value: Bool) throws(StorageError) {
        try check(sqlite3_bind_int64(handle, index, value ? 1 : 0))
    }

    // MARK: - Stepping

    /// Advances to the next row: `true` when a row is ready, `false` when the statement is done.
    @discardableResult
    package func step() throws(StorageError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw connection.error(code: code, sql: sql)
        }
    }

    /// Resets the statement and clears its bindings, so it is ready for the next use.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Columns (0-based, as SQLite counts columns)

    /// The integer in column `index` (0 for NULL).
    package func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The integer in column `index` as an `Int` (0 for NULL).
    package func int(_ index: Int32) -> Int {
        Int(sqlite3_column_int64(handle, index))
    }

    /// The double in column `index` (0 for NULL).
    package func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Whether column `index` holds NULL.
    package func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The text in column `index`, or nil for NULL.
    package func string(_ index: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The bytes in column `index` (text or blob), or nil for NULL.
    package func data(_ index: Int32) -> Data? {
        guard let bytes = sqlite3_column_blob(handle, index) else {
            return isNull(index) ? nil : Data()
        }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    private func check(_ code: Int32) throws(StorageError) {
        if code != SQLITE_OK { throw connection.error(code: code, sql: sql) }
    }
}

// Statements belong to one connection, which one serial owner uses at a time.
@available(*, unavailable)
extension Statement: Sendable {}
