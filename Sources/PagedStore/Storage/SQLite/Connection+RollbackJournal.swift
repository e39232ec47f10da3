import Foundation

extension Connection {
    /// Runs `body`, which opens and ends its own write transaction, with a rollback journal instead of
    /// the write-ahead log when no other connection has the file open; otherwise (another connection
    /// holds it, or an in-memory database) it simply runs `body` in WAL mode.
    ///
    /// Why: a transaction that writes a whole new file (a bulk seed: 1.45 GB for 10 million rows)
    /// writes every page twice in WAL mode, into the log and then, at the checkpoint after the commit,
    /// into the file. A rollback journal keeps only the pages that were in the file before the
    /// transaction (a handful for an empty cache); pages past the old end of the file go into it once.
    /// A crash (SIGKILL) leaves a hot journal that the next opener plays back, so the file is as it
    /// was before or wholly written, as with the log.
    ///
    /// What it costs: readers of a rollback journal wait while the writer holds the file (instead of
    /// reading the previous state from the log), and an app that opens the file meanwhile fails
    /// after its busy timeout, as switching to WAL needs the file alone. Callers use it only for a
    /// file with nothing to read yet. Leaving WAL mode needs every other connection gone; SQLite
    /// answers busy at once when one is there, and the transaction then runs in WAL mode as usual.
    ///
    /// After `body` the file goes back to WAL mode (waiting up to the busy timeout for readers that
    /// came meanwhile). Should that still fail, the file stays in rollback mode, which is consistent, and
    /// the next read-write open switches it (see ``PageStore/init(path:mode:migrate:busyTimeout:incrementalVacuum:)``).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_journal_mode>
    package func withRollbackJournal<T>(_ body: () throws -> T) throws -> T {
        guard file != ":memory:", isAutocommit, try leaveWAL() else { return try body() }
        defer {
            // Best effort: the result was committed (or rolled back) already, and a file left in
            // rollback mode is switched by its next read-write open.
            if (try? enableWAL(timeout: busyTimeout)) != nil { try? execute("PRAGMA synchronous = NORMAL") }
        }
        // FULL: with a rollback journal NORMAL may corrupt the file on a power cut (the journal is
        // not synced before pages are overwritten); in WAL mode NORMAL only loses the last commits.
        try execute("PRAGMA synchronous = FULL")
        return try body()
    }

    /// Switches the file to a rollback journal (`DELETE`); false when another connection has it open.
    private func leaveWAL() throws(StorageError) -> Bool {
        do throws(StorageError) {
            let mode = try row("PRAGMA journal_mode = DELETE") { statement in statement.string(0) } ?? ""
            return mode.lowercased() == "delete"
        } catch  where error.kind == .busy {
            return false
        }
    }
}
