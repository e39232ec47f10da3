import Foundation

extension Connection {
    /// Runs `body` in a write transaction and commits it, or rolls everything back if anything throws.
    ///
    /// The transaction starts with `BEGIN IMMEDIATE`: a deferred transaction that later upgrades to a
    /// write can fail with `SQLITE_BUSY` in a way no busy timeout prevents, while an immediate one waits
    /// for the write lock up front, within the timeout.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_transaction.html>
    package func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            rollbackIfStillOpen()
            throw error
        }
    }

    /// Runs `body` in a read transaction, so that all its reads see one committed state of the file.
    package func readTransaction<T>(_ body: () throws -> T) throws -> T {
        // Nested use (a read inside a write) already has a consistent view.
        guard isAutocommit else { return try body() }
        try run("BEGIN DEFERRED")
        defer { rollbackIfStillOpen() }
        return try readStatement(body)
    }

    /// Runs `body`, which runs one statement, in that statement's own read transaction (see
    /// ``DatabaseQueue/readStatement(_:)``); a file read as immutable is checked as in ``readTransaction(_:)``.
    package func readStatement<T>(_ body: () throws -> T) throws -> T {
        // A file read as immutable takes no lock: its reads count only if nobody wrote meanwhile, and
        // a read that failed (pages changed under it look damaged) is then a busy error, not damage.
        let result: T
        do {
            result = try body()
        } catch {
            try checkStillUnchanged()
            throw error
        }
        try checkStillUnchanged()
        return result
    }

    /// Switches the file to WAL mode, waiting for other connections like any write.
    ///
    /// Changing the journal mode needs an exclusive lock, and SQLite does not call the busy handler
    /// for it when this connection already reads (the upgrade could deadlock): two processes creating
    /// one cache would then fail at once. So the switch is retried here, within the busy timeout.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_journal_mode>
    package func enableWAL(timeout: Duration) throws(StorageError) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            do throws(StorageError) {
                let mode = try row("PRAGMA journal_mode = WAL") { statement in statement.string(0) } ?? ""
                if mode.lowercased() == "wal" { return }
                throw StorageError(.other, message: "\(path) could not be switched to WAL mode (it is \(mode))")
            } catch  where error.kind == .busy && clock.now < deadline {
                // Bounded by the deadline: never an endless retry.
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    /// Rolls back unless SQLite already did: some errors (a full disk, an I/O error) end the
    /// transaction by themselves, so ask SQLite instead of guessing from the error code.
    private func rollbackIfStillOpen() {
        guard !isAutocommit else { return }
        _ = try? run("ROLLBACK")
    }
}
