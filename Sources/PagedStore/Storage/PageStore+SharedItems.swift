import Foundation

/// What a write of a feed that shares its items stamps its rows with, and the copies it wrote.
package struct SharedCopyLog {
    /// When the copies were written, in ms since 1970: a copy never replaces a newer one.
    package let stamp: Int64
    /// Whether the rows written are copies to spread to the other feeds (a server page, a local
    /// update), rather than rows that must stay this feed's own (an optimistic edit, a rollback).
    package var logging: Bool
    /// The copies written while logging, in order.
    package private(set) var copies: [EncodedItem] = []

    /// Starts a log for a write at `stamp`.
    package init(stamp: Int64, logging: Bool) {
        self.stamp = stamp
        self.logging = logging
    }

    mutating func log(_ item: EncodedItem) {
        if logging { copies.append(item) }
    }

    /// Hands the copies over and logs no more: what follows in the write stays the feed's own.
    package mutating func take() -> [EncodedItem] {
        logging = false
        defer { copies = [] }
        return copies
    }
}

/// A row holding a copy of a shared item, in a feed other than the one writing it.
package struct SharedCopyHolder: Sendable, Equatable {
    /// The feed holding it.
    package var feedID: Int64
    /// The row's position in that feed.
    package var position: Int64
    /// When its copy was written (ms since 1970).
    package var copiedAt: Int64
    /// The kind of the feed's pending edit of the item, if it has one.
    package var pendingEdit: PendingEditRecord.Kind?

    /// Describes a row holding a copy.
    package init(feedID: Int64, position: Int64, copiedAt: Int64, pendingEdit: PendingEditRecord.Kind? = nil) {
        self.feedID = feedID
        self.position = position
        self.copiedAt = copiedAt
        self.pendingEdit = pendingEdit
    }
}

/// One item in many feeds: the rows of feeds whose items share a name (``FeedItem/sharedItemType``),
/// found by the item's id through the partial index `item_shared_by_id`.
extension PageStore {
    /// Records the name the feed's items are shared under (nil: its own). When it changes, the feed's
    /// rows join the shared index stamped with their page's fetch time, or leave it.
    /// - Returns: Whether the name changed.
    package func setSharedType(_ type: String?, of feed: FeedRecord) throws(StorageError) -> Bool {
        guard try sharedType(of: feed) != type else { return false }
        try connection.run("UPDATE feed SET shared_type = ? WHERE id = ?", type, feed.id)
        if type == nil {
            try connection.run("UPDATE item SET copied_at = NULL WHERE feed_id = ?", feed.id)
        } else {
            try stampRowsWithoutCopyTime(of: feed)
        }
        return true
    }

    /// Has the rows of a feed that shares its items which carry no copy time yet (written by a seed,
    /// outside the engine's writes) join the shared index, stamped with their page's fetch time, so
    /// that the copies other feeds write reach them. Nothing for a feed whose items are its own.
    package func joinSharing(rowsOf feed: FeedRecord) throws(StorageError) {
        guard try sharedType(of: feed) != nil else { return }
        try stampRowsWithoutCopyTime(of: feed)
    }

    private func stampRowsWithoutCopyTime(of feed: FeedRecord) throws(StorageError) {
        try connection.run(
            """
            UPDATE item SET copied_at = coalesce((SELECT fetched_at FROM page WHERE page.feed_id = item.feed_id
            AND page.page_no = item.page_no), 0) WHERE feed_id = ? AND copied_at IS NULL
            """, feed.id)
    }

    /// The name the feed's items are shared under, nil when they are its own.
    package func sharedType(of feed: FeedRecord) throws(StorageError) -> String? {
        try connection.row("SELECT shared_type FROM feed WHERE id = ?", feed.id) { $0.string(0) }
    }

    /// The rows of other feeds sharing their items as `type` that hold the item `itemID`.
    package func sharedHolders(
        of itemID: String, sharedAs type: String, except feedID: Int64
    ) throws(StorageError) -> [SharedCopyHolder] {
        // The partial index is used only when the query says its condition (copied_at IS NOT NULL).
        let sql = """
            SELECT item.feed_id, item.position, item.copied_at, edit.kind
            FROM item JOIN feed ON feed.id = item.feed_id
            LEFT JOIN pending_edit AS edit ON edit.feed_id = item.feed_id AND edit.item_id = item.item_id
            WHERE item.item_id = ?1 AND item.copied_at IS NOT NULL AND feed.shared_type = ?2 AND item.feed_id != ?3
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, itemID)
            try statement.bind(2, type)
            try statement.bind(3, feedID)
            var holders: [SharedCopyHolder] = []
            while try statement.step() {
                holders.append(
                    SharedCopyHolder(
                        feedID: statement.int64(0), position: statement.int64(1), copiedAt: statement.int64(2),
                        pendingEdit: statement.string(3).flatMap(PendingEditRecord.Kind.init(rawValue:))))
            }
            return holders
        }
    }

    /// The feeds sharing their items as `type` that hold `itemID`, with the row's position in each.
    package func feedsHolding(_ itemID: String, sharedAs type: String) throws(StorageError) -> [(FeedRecord, Int64)] {
        let holders = try sharedHolders(of: itemID, sharedAs: type, except: -1)
        var found: [(FeedRecord, Int64)] = []
        for holder in holders {
            if let feed = try feed(id: holder.feedID) { found.append((feed, holder.position)) }
        }
        return found
    }

    /// Writes `copy` into another feed's row at `position`, stamped `stamp`, unless the row holds the
    /// same payload and section already.
    /// - Returns: Whether the row changed (its list shows a reload).
    package func replaceSharedCopy(
        _ copy: EncodedItem, stamp: Int64, at position: Int64, in feedID: Int64
    ) throws(StorageError) -> Bool {
        let sql = """
            UPDATE item SET payload = ?1, section = ?2, copied_at = ?3
            WHERE feed_id = ?4 AND position = ?5 AND item_id = ?6 AND (payload IS NOT ?1 OR section IS NOT ?2)
            """
        let changed = try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, copy.payload, asText: textPayloads)
            try statement.bind(2, copy.section)
            try statement.bind(3, stamp)
            try statement.bind(4, feedID)
            try statement.bind(5, position)
            try statement.bind(6, copy.itemID)
            try statement.step()
            return connection.changes > 0
        }
        if !changed {
            // The same copy: only its stamp moves on, so that an older copy cannot replace it.
            try connection.run(
                "UPDATE item SET copied_at = ? WHERE feed_id = ? AND position = ? AND copied_at < ?", stamp, feedID,
                position, stamp)
        }
        return changed
    }

    /// Makes `copy` the server's copy under another feed's pending edit of the item: the edit stays
    /// shown, and a rollback restores this copy.
    package func replacePendingBase(_ copy: EncodedItem, in feedID: Int64) throws(StorageError) {
        try connection.run(
            "UPDATE pending_edit SET base = ?, base_section = ? WHERE feed_id = ? AND item_id = ? AND kind = 'update'",
            payload(copy.payload), copy.section, feedID, copy.itemID)
    }

    /// Makes `copy` what the pending removals of the item in other feeds sharing `type` put back on
    /// a rollback: those feeds have no row of the item, so no holder names them.
    package func replacePendingRemovalBases(
        _ copy: EncodedItem, sharedAs type: String, except feedID: Int64
    ) throws(StorageError) {
        try connection.run(
            """
            UPDATE pending_edit SET base = ?, base_section = ? WHERE item_id = ? AND kind = 'remove' AND feed_id != ?
            AND feed_id IN (SELECT id FROM feed WHERE shared_type = ?)
            """, payload(copy.payload), copy.section, copy.itemID, feedID, type)
    }

    /// The feed with row id `id`, or nil when the cache has none.
    package func feed(id: Int64) throws(StorageError) -> FeedRecord? {
        try connection.withStatement(Self.feedByIDSQL) { statement throws(StorageError) in
            try statement.bind(1, id)
            return try statement.step() ? Self.feedRecord(statement) : nil
        }
    }
}
