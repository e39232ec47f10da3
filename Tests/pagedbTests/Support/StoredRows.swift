@testable import PagedStore

/// What a file holds, read as the crash harnesses check it after a kill.
enum StoredRows {
    /// Every feed's item ids in the file at `path`, top first.
    static func byFeed(in path: String) throws -> [String: [String]] {
        try DatabaseQueue(path: path).read { store in
            var ids: [String: [String]] = [:]
            for feed in try store.feeds() {
                ids[feed.key] = try store.window(of: feed, from: .top, limit: Int.max).map(\.itemID)
            }
            return ids
        }
    }
}
