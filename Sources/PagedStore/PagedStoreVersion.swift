/// The version of PagedStore and of the SQLite library it runs on.
public enum PagedStoreVersion {
    /// PagedStore's own version.
    public static let library = "0.1.0"

    /// PagedStore's version, its newest schema version and the SQLite library in use, on one line.
    public static var description: String {
        "PagedStore \(library), schema \(Migrator().latestVersion), SQLite \(sqliteVersion)"
    }

    /// The version of the SQLite library linked at run time (which on Apple platforms is the system's).
    public static var sqliteVersion: String { SQLiteLibrary.version }
}
