import Foundation

@testable import PagedStore

/// Watches what open lists follow in a cache file, on a connection of its own: every feed's row
/// (its change count and policy) and the change record's newest write. A proof that an operation
/// wrote nothing a list follows, finer than the file's bytes (a write that puts back the same bytes
/// still bumps the change count).
final class FileWrites {
    private let observer: DatabaseQueue
    private var lastFeeds: [String] = []

    init(_ path: String) throws {
        observer = try DatabaseQueue(path: path)
        _ = try feedsWrittenSinceLastAsked()
    }

    /// Whether a feed's row or the change record changed since the last call (or since the watch
    /// began). The mark of when a feed was last opened (written at most once a minute, for the
    /// store's budget) is neither.
    func feedsWrittenSinceLastAsked() throws -> Bool {
        let state = try observer.read { store in
            let feeds = try store.feeds().map { "\($0.id) \($0.changeCount) \($0.policy ?? "")" }
            let newest = try store.connection.int64("SELECT max(seq) FROM feed_change") ?? 0
            return feeds + ["\(newest)"]
        }
        defer { lastFeeds = state }
        return state != lastFeeds
    }
}
