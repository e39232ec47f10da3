package import Foundation

/// A value as SQLite stores it, ready to bind to a statement's parameter.
package enum SQLValue {
    /// NULL.
    case null
    /// An INTEGER (booleans are 0 or 1).
    case integer(Int64)
    /// A REAL.
    case real(Double)
    /// TEXT.
    case text(String)
    /// Bytes, bound as TEXT (a JSON payload, readable with `sqlite3`) or as a BLOB.
    case bytes(Data, asText: Bool)
}

/// A value bound to a statement's parameter by position.
package protocol SQLArgument {
    /// The value to bind.
    var sqlValue: SQLValue { get }
}

extension Int64: SQLArgument { package var sqlValue: SQLValue { .integer(self) } }
extension Int: SQLArgument { package var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Bool: SQLArgument { package var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension Double: SQLArgument { package var sqlValue: SQLValue { .real(self) } }
extension String: SQLArgument { package var sqlValue: SQLValue { .text(self) } }
extension SQLValue: SQLArgument { package var sqlValue: SQLValue { self } }

extension Optional: SQLArgument where Wrapped: SQLArgument {
    package var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension Statement {
    /// Binds `value` to parameter `index` (1-based, as SQLite counts).
    package func bind(_ index: Int32, _ value: SQLValue) throws(StorageError) {
        switch value {
        case .null: try bind(index, nil as Int64?)
        case .integer(let integer): try bind(index, integer)
        case .real(let real): try bind(index, real)
        case .text(let text): try bind(index, text)
        case .bytes(let data, let asText): try bind(index, data, asText: asText)
        }
    }
}

/// One statement in one line: the SQL and its arguments, bound in order. The prepared statement is
/// the connection's cached one, reset afterwards, as with ``Connection/withStatement(_:_:)``.
///
/// The arguments arrive as an array of existentials, one allocation a call: paths that run a
/// statement once per row (inserting a page's rows, looking up ids one by one, reading a window)
/// bind with ``Connection/withStatement(_:_:)`` directly.
extension Connection {
    /// Runs one statement that returns no rows.
    /// - Returns: For an INSERT, UPDATE or DELETE, the rows it changed.
    @discardableResult
    package func run(_ sql: String, _ arguments: any SQLArgument...) throws(StorageError) -> Int {
        try withStatement(sql) { statement throws(StorageError) in
            try Self.bind(arguments, to: statement)
            try statement.step()
            return changes
        }
    }

    /// The first column of the first row as an integer, or nil when there is no row (or it is NULL).
    package func integer(_ sql: String, _ arguments: any SQLArgument...) throws(StorageError) -> Int64? {
        try withStatement(sql) { statement throws(StorageError) in
            try Self.bind(arguments, to: statement)
            return try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
        }
    }

    /// The first row of one statement read by `read`, or nil when there is no row (or `read` finds
    /// nothing in it).
    package func row<Row>(
        _ sql: String, _ arguments: any SQLArgument..., read: (Statement) -> Row?
    ) throws(StorageError) -> Row? {
        try withStatement(sql) { statement throws(StorageError) in
            try Self.bind(arguments, to: statement)
            return try statement.step() ? read(statement) : nil
        }
    }

    /// Every row of one statement, each read by `row`.
    package func rows<Row>(
        _ sql: String, _ arguments: any SQLArgument..., row: (Statement) -> Row
    ) throws(StorageError) -> [Row] {
        try withStatement(sql) { statement throws(StorageError) in
            try Self.bind(arguments, to: statement)
            var rows: [Row] = []
            while try statement.step() { rows.append(row(statement)) }
            return rows
        }
    }

    private static func bind(_ arguments: [any SQLArgument], to statement: Statement) throws(StorageError) {
        for (offset, argument) in arguments.enumerated() {
            try statement.bind(Int32(offset + 1), argument.sqlValue)
        }
    }
}
