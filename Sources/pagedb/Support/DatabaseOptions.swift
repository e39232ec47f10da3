import ArgumentParser
import Foundation
import PagedStore

/// `--db PATH`, shared by every command that opens a cache.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The cache file. Defaults to the PAGEDB_DATABASE environment variable.", valueName: "path"))
    var db: String?

    /// The path from `--db` or the environment, or a usage error that says how to give one.
    func path() throws -> String {
        if let db, !db.isEmpty { return db }
        if let fromEnvironment = ProcessInfo.processInfo.environment["PAGEDB_DATABASE"], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        throw ValidationError("No cache file given: pass --db PATH or set PAGEDB_DATABASE.")
    }

    /// Opens the file read-only: never creates it, never changes it or its side files.
    func openForReading() throws -> DatabaseQueue {
        try DatabaseQueue(path: path(), mode: .readOnly)
    }

    /// Opens the file for writing, creating and migrating it when needed.
    func openForWriting() throws -> DatabaseQueue {
        try DatabaseQueue(path: path(), mode: .readWrite)
    }

    /// Opens an existing file for writing to the feed `key`, which must exist: commands that change a
    /// feed (trim, delete, apply --as next) never create a file, and when they fail because the file
    /// or the feed is missing they have not migrated or otherwise changed it.
    ///
    /// The feed is looked up through a read-only connection first; the command's write transaction
    /// looks it up again, since another process may delete it in between.
    func openForChanging(feed key: String) throws -> DatabaseQueue {
        let path = try path()
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure(status: .missingFile, message: "No database at \(Terminal.escape(path))")
        }
        let reader = try DatabaseQueue(path: path, mode: .readOnly, migrate: false)
        let exists = try reader.read { store -> Bool in
            switch store.statusAtOpen {
            case .empty: return false
            case .current: return try store.feed(key: key) != nil
            // An older schema is migrated by the write; the write then finds the feed or fails.
            case .behind, .tooNew, .foreign: return true
            }
        }
        guard exists else { throw CommandFailure.unknownFeed(key) }
        return try DatabaseQueue(path: path, mode: .readWrite)
    }

    /// Opens the file read-only and runs `body` with the feed `key` in one read transaction: everything
    /// a command prints comes from one committed state of the file, even while another process writes.
    func reading<T>(feed key: String, _ body: (PageStore, FeedRecord) throws -> T) throws -> T {
        try openForReading().read { store in
            guard let record = try store.feed(key: key) else { throw CommandFailure.unknownFeed(key) }
            return try body(store, record)
        }
    }

    /// Reads the feed `key`, or fails with the unknown-feed status.
    func feed(_ key: String, in queue: DatabaseQueue) throws -> FeedRecord {
        guard let feed = try queue.read({ try $0.feed(key: key) }) else { throw CommandFailure.unknownFeed(key) }
        return feed
    }
}

/// `--json`, for commands that print data.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON document on stdout instead of a table (fields: the article Using pagedb).")
    var json = false

    @Flag(name: .long, help: "Print whole values in tables instead of shortening them in the middle.")
    var wide = false

    /// A table cell: escaped, and shortened to `width` unless `--wide`.
    func cell(_ text: String?, _ width: Int) -> String {
        Terminal.short(text, wide ? .max : width)
    }
}
