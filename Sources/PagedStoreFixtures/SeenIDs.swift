import Foundation
import PagedStore

/// The ids a fixture read has met, with the byte offset of each, to refuse an id that appears twice.
///
/// In memory for a file read whole; for a streamed seed, in a temporary SQLite index on disk, so
/// that ten million ids do not need hundreds of MiB (SQLite's page cache bounds what is resident).
final class SeenIDs {
    private var memory: [String: Int] = [:]
    private let index: Connection?
    private let folder: URL?

    /// An in-memory set.
    init() {
        index = nil
        folder = nil
    }

    /// A set kept in a private temporary folder, removed with this object.
    init(onDisk: Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pagedstore-ids-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        self.folder = folder
        let index = try Connection(path: folder.appendingPathComponent("ids.sqlite").path, mode: .readWrite)
        // A scratch file: no journal, no syncs; it is deleted whatever happens.
        try index.execute(
            """
            PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -8192;
            CREATE TABLE seen (id TEXT PRIMARY KEY, offset INTEGER NOT NULL) WITHOUT ROWID; BEGIN
            """)
        self.index = index
    }

    deinit {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// Records `id` at `offset`; returns the offset where it was first seen when it is a repeat.
    func insert(_ id: String, at offset: Int, _ fail: (Int, String) -> FixtureError) throws(FixtureError) -> Int? {
        guard let index else {
            if let previous = memory[id] { return previous }
            memory[id] = offset
            return nil
        }
        do throws(StorageError) {
            // Bound by hand, with no array of arguments: a streamed seed runs this for every line.
            try index.withStatement("INSERT INTO seen (id, offset) VALUES (?, ?) ON CONFLICT DO NOTHING") {
                statement throws(StorageError) in
                try statement.bind(1, id)
                try statement.bind(2, Int64(offset))
                try statement.step()
            }
            if index.changes > 0 { return nil }
            return try index.integer("SELECT offset FROM seen WHERE id = ?", id).map { Int($0) }
        } catch {
            throw fail(offset, "cannot check the ids for repeats: \(error.message)")
        }
    }
}
