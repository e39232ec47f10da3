import Foundation

@testable import PagedStore

/// Counts the commits other connections make to a cache file, through SQLite's `data_version` on a
/// connection of its own: a proof that an operation wrote nothing, finer than the file's bytes (a
/// commit that rewrites the same bytes still counts).
final class FileWrites {
    private let observer: DatabaseQueue
    private var lastVersion: Int64

    init(_ path: String) throws {
        observer = try DatabaseQueue(path: path)
        lastVersion = try Self.version(observer)
    }

    /// Whether another connection committed since the last call (or since the counter was made).
    func wroteSinceLastAsked() throws -> Bool {
        let version = try Self.version(observer)
        defer { lastVersion = version }
        return version != lastVersion
    }

    private static func version(_ queue: DatabaseQueue) throws -> Int64 {
        try queue.withoutTransaction { try $0.connection.int64("PRAGMA data_version") } ?? 0
    }
}
