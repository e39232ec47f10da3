import CSQLite

/// Facts about the SQLite library linked at run time.
enum SQLiteLibrary {
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
