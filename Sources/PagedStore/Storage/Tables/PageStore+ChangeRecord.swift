import Foundation

/// The change record: one row per committed write of a feed, in the write's transaction, so that a
/// list that was not told of a write (another process made it, or it missed several) learns what
/// changed since the feed's row it holds.
extension PageStore {
    /// One write of a feed as the record keeps it.
    package struct StoredChange: Sendable, Equatable {
        /// The store-wide sequence number of the write.
        package var sequence: Int64
        /// The feed's change count before and after the write.
        package var fromCount: Int64
        package var toCount: Int64
        /// The feed's row count before and after the write.
        package var fromRows: Int
        package var toRows: Int
        /// The change, encoded by the engine.
        package var bytes: [UInt8]
    }

    /// Records that a write took `before` to `after` with the change `bytes`.
    /// - Returns: The write's sequence number.
    @discardableResult
    package func recordChange(
        from before: FeedRecord, to after: FeedRecord, bytes: [UInt8]
    ) throws(StorageError)
        -> Int64
    {
        let sql = """
            INSERT INTO feed_change (feed_id, from_count, to_count, from_rows, to_rows, change)
            VALUES (?, ?, ?, ?, ?, ?)
            """
        // Bound by hand: every commit runs this.
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, after.id)
            try statement.bind(2, before.changeCount)
            try statement.bind(3, after.changeCount)
            try statement.bind(4, before.rowCount)
            try statement.bind(5, after.rowCount)
            try statement.bind(6, Data(bytes), asText: false)
            try statement.step()
            return connection.lastInsertedRowID
        }
    }

    /// The recorded writes of `feed` that start at change count `count` or later, in order.
    package func recordedChanges(of feed: FeedRecord, since count: Int64) throws(StorageError) -> [StoredChange] {
        let sql = """
            SELECT seq, from_count, to_count, from_rows, to_rows, change FROM feed_change
            WHERE feed_id = ? AND from_count >= ? ORDER BY seq
            """
        return try connection.rows(sql, feed.id, count) { statement in
            StoredChange(
                sequence: statement.int64(0), fromCount: statement.int64(1), toCount: statement.int64(2),
                fromRows: statement.int(3), toRows: statement.int(4), bytes: Array(statement.data(5) ?? Data()))
        }
    }

    /// Deletes the record's writes up to sequence `sequence`.
    package func forgetChanges(through sequence: Int64) throws(StorageError) {
        try connection.run("DELETE FROM feed_change WHERE seq <= ?", sequence)
    }
}
