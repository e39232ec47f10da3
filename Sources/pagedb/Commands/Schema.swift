import ArgumentParser
import Foundation
import PagedStore

extension PagedDB {
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply the schema migrations this pagedb knows to a cache file.",
            discussion: """
                Each migration runs in one transaction with its version bump. A file from a newer \
                PagedStore, or another program's database, is refused and left untouched. Migrate is a \
                write command: on a missing file it creates a new cache (mode 0600) and migrates it, and \
                says so. --dry-run never creates or changes anything.

                Example:
                  pagedb migrate --db cache.sqlite --dry-run
                """)

        @OptionGroup var database: DatabaseOptions
        @Flag(name: .long, help: "List the pending migrations without applying them.") var dryRun = false

        func run() async throws {
            let path = try database.path()
            let migrator = Migrator()
            if dryRun && !FileManager.default.fileExists(atPath: path) {
                print("No database at \(Terminal.escape(path)): migrate would create it and apply:")
                for migration in migrator.migrations { print("would apply \(migration.name)") }
                return
            }
            let queue = try DatabaseQueue(path: path, mode: dryRun ? .readOnly : .readWrite, migrate: false)
            let created = try queue.withoutTransaction { $0.connection.createdFile }
            if created { print("Created a new cache at \(Terminal.escape(path)).") }
            let pending = try queue.read { store in migrator.pending(for: store.statusAtOpen) }
            if pending.isEmpty { return print("Up to date: schema version \(migrator.latestVersion).") }
            let applied =
                dryRun ? pending : try queue.withoutTransaction { store in try migrator.migrate(store.connection) }
            for migration in applied { print("\(dryRun ? "would apply" : "applied") \(migration.name)") }
        }
    }

    struct Schema: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the schema version of a cache and the SQL of every migration.",
            discussion: """
                Without --db, prints the migrations built into this pagedb. Opens the file read-only.

                Example:
                  pagedb schema --db cache.sqlite
                """)

        @Option(name: .long, help: ArgumentHelp("The cache file (optional).", valueName: "path")) var db: String?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let migrator = Migrator()
            var fileVersion: Int?
            if let db {
                let queue = try DatabaseQueue(path: db, mode: .readOnly, migrate: false)
                fileVersion = try queue.read { store in
                    switch store.statusAtOpen {
                    case .empty: 0
                    case .behind(let version): version
                    case .current: migrator.latestVersion
                    case .tooNew(let version): version
                    case .foreign: nil
                    }
                }
            }
            if output.json {
                return try Terminal.printJSON(
                    SchemaJSON(
                        fileVersion: fileVersion, libraryVersion: migrator.latestVersion,
                        migrations: migrator.migrations.map { .init(version: $0.version, name: $0.name, sql: $0.sql) }))
            }
            if let fileVersion { print("File schema version: \(fileVersion)") }
            print("Schema version of this pagedb: \(migrator.latestVersion)\n")
            for migration in migrator.migrations {
                print("-- \(migration.name)\n\(migration.sql)")
            }
        }
    }
}
