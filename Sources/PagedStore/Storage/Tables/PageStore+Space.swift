package import Foundation

/// The file's space: how many pages it has and how many are free, and giving free pages back to the
/// file system.
///
/// A deleted row frees its pages inside the file; the file itself shrinks only when they are given
/// back. A file created by a store with a budget has `PRAGMA auto_vacuum = INCREMENTAL`
/// (``PageStore/init(path:mode:migrate:busyTimeout:incrementalVacuum:)``), so that
/// ``releaseFreePages()`` gives them back in a short write; any other file is converted by one
/// ``vacuum()``, which rewrites it whole, the first time it must shrink.
///
/// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_auto_vacuum>
extension PageStore {
    /// The file's pages as SQLite counts them.
    package struct FileSpace: Sendable, Equatable {
        /// Bytes per page.
        package var pageSize: Int64
        /// Pages in the database, free ones included.
        package var pageCount: Int64
        /// Pages that hold nothing (freed by deletes, not yet given back).
        package var freePages: Int64
        /// Whether the file gives free pages back with ``PageStore/releaseFreePages()``
        /// (`auto_vacuum = INCREMENTAL`).
        package var isIncremental: Bool

        /// The database's size in bytes, free pages included: the size of the file once the log is
        /// checkpointed.
        package var bytes: Int64 { pageSize.multipliedReportingOverflow(by: pageCount).partialValue }
        /// The bytes that hold data.
        package var usedBytes: Int64 {
            pageSize.multipliedReportingOverflow(by: max(pageCount - freePages, 0)).partialValue
        }
    }

    /// The file's pages and free pages: three pragmas that read the header only.
    package func fileSpace() throws(StorageError) -> FileSpace {
        FileSpace(
            pageSize: try connection.int64("PRAGMA page_size") ?? 0,
            pageCount: try connection.int64("PRAGMA page_count") ?? 0,
            freePages: try connection.int64("PRAGMA freelist_count") ?? 0,
            isIncremental: try connection.int64("PRAGMA auto_vacuum") == 2)
    }

    /// Gives every free page back to the file system, in its own short transaction (run it outside
    /// any), then copies the log into the file so the file itself shrinks when no reader holds an
    /// older snapshot, and empties the log when no other connection uses it. Does nothing on a file
    /// that is not incremental.
    package func releaseFreePages() throws(StorageError) {
        try connection.execute("PRAGMA incremental_vacuum")
        try checkpoint()
    }

    /// Rewrites the whole file (`VACUUM`), converting it to incremental auto-vacuum on the way: the
    /// file ends as small as its data. Run it outside any transaction; it holds the write lock while
    /// it copies, and needs free disk space for a copy of the file.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/lang_vacuum.html>
    package func vacuum() throws(StorageError) {
        try connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
        try connection.execute("VACUUM")
        try checkpoint()
    }

    /// Copies what the log holds into the file and empties the log file when nobody else uses it
    /// (see ``Connection/checkpointTruncatingLog()``): the file is truncated to its pages, and the
    /// log to nothing, when every frame was copied.
    private func checkpoint() throws(StorageError) {
        try connection.checkpointTruncatingLog()
    }

    /// One feed as the budget sees it.
    package struct FeedUse: Sendable, Equatable {
        /// The feed's row.
        package var feed: FeedRecord
        /// About how many bytes its rows take: their payloads, ids and a fixed cost a row.
        package var bytes: Int64
        /// When it was last opened; nil when it never was since the file recorded it.
        package var openedAt: Date?
        /// Whether it has pending optimistic edits.
        package var hasPendingEdits: Bool
    }

    /// What a row costs beyond its payload and id: its position, page, keys and two index entries.
    static let rowOverheadBytes = 48

    /// Every feed with its size, last open and pending edits: one pass over the items.
    package func feedUses() throws(StorageError) -> [FeedUse] {
        let sizes = try connection.rows(
            """
            SELECT feed_id, sum(length(CAST(payload AS BLOB)) + 2 * length(item_id) + ?) FROM item
            GROUP BY feed_id
            """, Self.rowOverheadBytes
        ) { statement in (statement.int64(0), statement.int64(1)) }
        let bytes = Dictionary(sizes, uniquingKeysWith: +)
        let opened = Dictionary(
            try connection.rows("SELECT feed_id, opened_at FROM feed_use") { statement in
                (statement.int64(0), Date(millisecondsSince1970: statement.int64(1)))
            }, uniquingKeysWith: { first, _ in first })
        let edited = Set(try connection.rows("SELECT DISTINCT feed_id FROM pending_edit") { $0.int64(0) })
        return try feeds().map { feed in
            FeedUse(
                feed: feed, bytes: bytes[feed.id] ?? 0, openedAt: opened[feed.id],
                hasPendingEdits: edited.contains(feed.id))
        }
    }

    /// When `feed` was last opened, or nil.
    package func openedAt(_ feed: FeedRecord) throws(StorageError) -> Date? {
        try connection.integer("SELECT opened_at FROM feed_use WHERE feed_id = ?", feed.id)
            .map { Date(millisecondsSince1970: $0) }
    }

    /// Records that `feed` was opened at `date`.
    package func recordOpened(_ feed: FeedRecord, at date: Date) throws(StorageError) {
        try connection.run(
            """
            INSERT INTO feed_use (feed_id, opened_at) VALUES (?, ?)
            ON CONFLICT (feed_id) DO UPDATE SET opened_at = excluded.opened_at
            """, feed.id, date.millisecondsSince1970)
    }

    /// The rows of `feed` that pending edits name (the edited item and the rows a removed or inserted
    /// one goes back between): the deepest of them, as a row index, or nil when there is none. A
    /// detached edit (its rows left under it) names none: it shows on no row, even one of its item
    /// that a later page brought back.
    package func deepestPendingEditRow(in feed: FeedRecord) throws(StorageError) -> Int? {
        let position = try connection.integer(
            """
            SELECT max(item.position) FROM pending_edit AS edit JOIN item
            ON item.feed_id = edit.feed_id AND item.item_id IN (edit.item_id, edit.above_id, edit.below_id)
            WHERE edit.feed_id = ? AND edit.detached = 0
            """, feed.id)
        guard let position else { return nil }
        return try rowIndex(ofPosition: position, in: feed)
    }
}
