/// One numbered schema change, from a `Migrations/NNNN_description.sql` file.
package struct Migration: Sendable, Equatable {
    /// The number the file name starts with; also the `user_version` the file has once it is applied.
    package let version: Int
    /// The file name, such as `0001_create_feed_store.sql`.
    package let name: String
    /// The file's SQL, byte for byte.
    package let sql: String
}

/// What a file's schema is, compared with the migrations this build knows.
package enum SchemaStatus: Equatable, Sendable {
    /// A new, empty database: every migration is pending.
    case empty
    /// A PagedStore file at `version`, below the newest this build knows.
    case behind(version: Int)
    /// A PagedStore file at this build's newest version.
    case current
    /// A PagedStore file written by a newer build; it is left untouched.
    case tooNew(version: Int)
    /// A SQLite file that is not PagedStore's.
    case foreign
}

/// Applies the migrations compiled into the binary, each in its own transaction with its version bump.
///
/// The version lives in `PRAGMA user_version` and the file is marked as PagedStore's with
/// `PRAGMA application_id` (set by the first migration), so a foreign SQLite file is never migrated.
///
/// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_user_version>
package struct Migrator: Sendable {
    /// PagedStore's `application_id`, the bytes `PGST`.
    package static let applicationID: Int64 = 0x5047_5354

    /// The migrations, in version order.
    package let migrations: [Migration]

    /// A migrator over the migrations embedded in this build.
    package init(migrations: [Migration] = EmbeddedMigrations.all) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// The newest schema version this build knows.
    package var latestVersion: Int { migrations.last?.version ?? 0 }

    /// A store's first query on a new connection: the file's marker. Reading it reads the file's
    /// header, so a file that is not a database fails at once, without parsing the schema (the first
    /// statement that needs the schema parses it anyway).
    package static let markerSQL = "PRAGMA application_id"

    /// How many schema objects the file has: tells an empty file from another program's.
    static let schemaObjectsSQL = "SELECT count(*) FROM sqlite_schema"

    /// What ``probe(_:marker:)`` reads.
    package struct Probe: Sendable, Equatable {
        /// `PRAGMA user_version`.
        package var version: Int
        /// `PRAGMA application_id`.
        package var applicationID: Int64
        /// How many schema objects the file has (read only when the marker is not PagedStore's: it
        /// then tells an empty file from another program's).
        package var schemaObjects: Int
    }

    /// Reads the file's schema version and marker without writing anything.
    ///
    /// Plain `PRAGMA` statements: reading the same values through the pragma table-valued functions
    /// in one query measured five times slower to prepare, on the path every cold open takes.
    ///
    /// A file that carries PagedStore's marker keeps it (no migration removes it), so its version is
    /// then read on its own, outside any transaction: a version that another process raises meanwhile
    /// is read as it is then, and ``migrate(_:)`` reads it again under the write lock. That saves the
    /// transaction's BEGIN and ROLLBACK and the schema count on every open (W3 cold). Any other file is
    /// read in one read transaction: read one by one, another process creating the file meanwhile
    /// could show its schema without its marker, a foreign file to this reader.
    ///
    /// - Parameter knownMarker: The marker this connection read already (its open's probe), so the
    ///   common case costs one read less; another value than PagedStore's is read again with the rest.
    package static func probe(_ connection: Connection, marker knownMarker: Int64? = nil) throws(StorageError) -> Probe
    {
        if connection.isAutocommit {
            var marker = knownMarker
            if marker == nil { marker = try connection.int64(markerSQL) }
            if marker == applicationID {
                let version = Int(try connection.int64("PRAGMA user_version") ?? 0)
                return Probe(version: version, applicationID: applicationID, schemaObjects: 1)
            }
        }
        let ownsTransaction = connection.isAutocommit
        if ownsTransaction { try connection.execute("BEGIN DEFERRED") }
        defer { if ownsTransaction, !connection.isAutocommit { try? connection.execute("ROLLBACK") } }
        return Probe(
            version: Int(try connection.int64("PRAGMA user_version") ?? 0),
            applicationID: try connection.int64(markerSQL) ?? 0,
            schemaObjects: Int(try connection.int64(schemaObjectsSQL) ?? 0))
    }

    /// Reads the file's schema version and marker without writing anything.
    package func status(of connection: Connection) throws(StorageError) -> SchemaStatus {
        status(of: try Self.probe(connection))
    }

    /// The status a probe shows.
    package func status(of probe: Probe) -> SchemaStatus {
        if probe.applicationID != Self.applicationID {
            return probe.applicationID == 0 && probe.version == 0 && probe.schemaObjects == 0 ? .empty : .foreign
        }
        if probe.version > latestVersion { return .tooNew(version: probe.version) }
        return probe.version == latestVersion ? .current : .behind(version: probe.version)
    }

    /// The migrations that a file at `status` still needs.
    package func pending(for status: SchemaStatus) -> [Migration] {
        switch status {
        case .empty: migrations
        case .behind(let version): migrations.filter { $0.version > version }
        case .current, .tooNew, .foreign: []
        }
    }

    /// Applies every pending migration, each in one `BEGIN IMMEDIATE` transaction with its version bump.
    ///
    /// - Returns: The migrations applied, in order (none when the file was current).
    /// - Throws: ``StorageError/Kind/schemaTooNew`` or ``StorageError/Kind/foreignDatabase``, having
    ///   written nothing, or the error of the migration that failed (earlier ones stay applied).
    @discardableResult
    package func migrate(_ connection: Connection) throws -> [Migration] {
        let status = try status(of: connection)
        try Self.refuse(status, path: connection.path, latest: latestVersion)
        let pending = pending(for: status)
        for migration in pending {
            try connection.writeTransaction {
                // Re-read inside the write lock: another process may have created or migrated the
                // file meanwhile (or, in a hostile world, replaced it with another program's).
                let now = try self.status(of: connection)
                try Self.refuse(now, path: connection.path, latest: latestVersion)
                guard self.pending(for: now).contains(migration) else { return }
                try connection.execute(migration.sql)
                try connection.execute("PRAGMA user_version = \(migration.version)")
            }
        }
        return pending
    }

    /// Throws for the statuses that must leave a file untouched.
    package static func refuse(_ status: SchemaStatus, path: String, latest: Int) throws(StorageError) {
        switch status {
        case .tooNew(let version):
            throw StorageError(
                .schemaTooNew,
                message:
                    "\(path) has schema version \(version), newer than this PagedStore knows (\(latest)); "
                    + "update PagedStore or pagedb. The file was not changed")
        case .foreign:
            throw StorageError(
                .foreignDatabase,
                message: "\(path) is a SQLite database, but not a PagedStore cache. The file was not changed")
        case .empty, .behind, .current:
            return
        }
    }
}
