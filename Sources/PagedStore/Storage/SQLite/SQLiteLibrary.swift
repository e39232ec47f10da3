import CSQLite

/// Facts about the SQLite library linked at run time.
package enum SQLiteLibrary {
    /// Turns off SQLite's memory statistics for the whole process, when SQLite has not been used yet
    /// (afterwards SQLite refuses the change, and this does nothing).
    ///
    /// Why: with them on, every allocation SQLite makes takes one process-wide mutex to count it,
    /// also on connections opened without mutexes; a 10-million-line seed makes hundreds of millions.
    /// Without them `sqlite3_memory_used()` reads 0 and a soft heap limit is not enforced, so it is for
    /// a process that owns its SQLite use, such as `pagedb seed`, never for an app's library.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/c_config_covering_index_scan.html>
    package static func turnOffMemoryStatistics() {
        _ = csqlite_config_memstatus(0)
    }

    /// The oldest SQLite PagedStore runs on: 3.37 brought STRICT tables and SQLITE_OPEN_EXRESCODE.
    static let minimumVersionNumber: Int32 = 3_037_000

    /// The run-time library's version, such as `3.40.1`.
    static var version: String { String(cString: sqlite3_libversion()) }

    /// Throws when the run-time library is older than the minimum. The header check at build time is
    /// not enough on Apple platforms, where the SDK's header and the device's library differ.
    static func checkVersion() throws(StorageError) {
        guard sqlite3_libversion_number() >= minimumVersionNumber else {
            throw StorageError(
                .other, message: "PagedStore needs SQLite 3.37 or newer; this system has \(version)")
        }
    }
}
