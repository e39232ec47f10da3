import Foundation

/// A feed of a read-only store (``FeedStore/init(path:busyTimeout:readOnly:changeRecordLimit:budget:)``): it shows the file's
/// rows and follows other writers, and every operation that would write is refused before it fetches.
extension Feed {
    /// The error every write-type operation of a read-only store fails with.
    static var readOnlyError: FeedError { FeedError(StorageError.readOnlyStore) }

    /// Opens the feed without writing: the file's row and first screen in one read transaction, or an
    /// empty feed when the file has no row for it, or has one of another ``FeedPolicy/cacheVersion``
    /// (its rows are another model's; the app's writer empties it). A writer that creates or refills
    /// the feed later is followed like any other write.
    static func openWithoutWriting(policy: FeedPolicy, queue: DatabaseQueue, key: String) throws -> OpenedFeed {
        try queue.read { store in
            var record = try store.feed(key: key) ?? FeedRecord.missing(key: key)
            if let recorded = PolicyJSON.shared.cacheVersion(recordedIn: record.policy), recorded != policy.cacheVersion
            {
                record = FeedRecord.missing(key: key)
            }
            return try open(record, in: store, policy: policy)
        }
    }
}

extension FeedRecord {
    /// A feed the file has no row for, as a read-only store shows it: no rows, nothing loaded. Its
    /// id is no row's (SQLite's row ids start at 1), so every read of its rows finds none.
    static func missing(key: String) -> FeedRecord {
        FeedRecord(
            id: 0, key: key, newestCursor: nil, oldestCursor: nil, endReached: false, rowCount: 0, topPosition: nil,
            bottomPosition: nil, lastRefreshAt: nil, lastError: nil, generation: 0, loaded: false, hasSections: false,
            policy: nil, changeCount: 0)
    }
}
