import Foundation

/// A value bound to a statement's parameter by position.
package protocol SQLArgument {
    /// Binds the value to parameter `index` (1-based, as SQLite counts).
    func bind(to statement: Statement, at index: Int32) throws(StorageError)
}

extension Int64: SQLArgument {
    package func bind(to statement: Statement, at index: Int32) throws(StorageError) {
        try statement.bind(index, self)
    }
}

extension Int: SQLArgument {
    package func bind(to statement: Statement, at index: Int32) throws(StorageError) {
        try statement.bind(index, self)
    }
}

extension Bool: SQLArgument {
    package func bind(to statement: Statement, at index: Int32) throws(StorageError) {
        try statement.bind(index, self)
    }
}

extension Double: SQLArgument {
    package func bind(to statement: Statement, at index: Int32) throws(StorageError) {
        try statement.bind(index, self)
    }
}

extension String: SQLArgument {
    package func bind(to statement: Statement, at index: Int32) throws(StorageError) {
        try statement.bind(index, self)
    }
}

extension Optional: SQLArgument where Wrapped: SQLArgument {
    package func bind(to statement: Statement, at index: Int32) throws(StorageError) {
        switch self {
        case .some(let value): try value.bind(to: statement, at: index)
        case .none: try statement.bind(index, nil as Int64?)
        }
    }
}

/// One statement in one line: the SQL and its arguments, bound in order. The prepared statement is
/// the connection's cached one, reset afterwards, as with ``Connection/withStatement(_:_:)``; hot
/// paths that bind in a loop keep using that directly.
extension Connection {
    /// Runs one statement that returns no rows.
    package func run(_ sql: String, _ arguments: any SQLArgument...) throws(StorageError) {
        try withStatement(sql) { statement throws(StorageError) in
            try Self.bind(arguments, to: statement)
            try statement.step()
        }
    }

    /// The first column of the first row as an integer, or nil when there is no row (or it is NULL).
    package func integer(_ sql: String, _ arguments: any SQLArgument...) throws(StorageError) -> Int64? {
        try withStatement(sql) { statement throws(StorageError) in
            try Self.bind(arguments, to: statement)
            return try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
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
            try argument.bind(to: statement, at: Int32(offset + 1))
        }
    }
}
