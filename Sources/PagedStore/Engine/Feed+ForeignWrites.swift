import Foundation

/// Noticing that another `Feed` (a second store, an app extension, another process, a second
/// screen on the same key) wrote this feed, before this one reads or writes it.
///
/// Two marks decide it. ``DatabaseQueue/WriteMark`` (SQLite's `data_version` and the writes of this
/// store's connection) tells in one statement that nobody wrote the file at all, the usual case;
/// when someone did, the feed's row says whether it was this feed: its ``FeedRecord/changeCount``
/// is bumped by every write, also one that changed only an item's content. Writes compare the row
/// inside their own transaction (see ``FeedWriter``); reads call ``syncWithFile()``.
extension Feed {
    /// Takes the file's rows with one full reload when another `Feed` wrote this feed since this one
    /// last looked; nothing but one cheap statement when nobody wrote the file.
    ///
    /// Run it before reading the feed, or after a read that ran without a transaction: a read made
    /// before an unchanged mark saw the rows this feed holds.
    /// - Parameter leavingToldWrites: Leaves a row that a write of this process left to that write's
    ///   follow (see ``follow(_:)``), which has its exact change; for looks that need not read now.
    /// - Returns: Whether the file's row was not the one this feed held.
    @discardableResult
    func syncWithFile(leavingToldWrites: Bool = false) throws -> Bool {
        let mark = try queue.writeMark()
        guard mark != loaded.writeMark else { return false }
        let key = self.key
        // No row: another writer deleted the feed, and it has nothing now.
        let file = try queue.readStatement { store in try store.feed(key: key) } ?? loaded.record.deleted
        guard file != loaded.record else {
            loaded.writeMark = mark
            return false
        }
        if leavingToldWrites, let identity = queue.file, LiveFeeds.shared.isAnnounced(file, in: identity) {
            return true
        }
        // The mark first, then the row: a write in between changes the mark again, and is looked at next time.
        loaded.writeMark = mark
        resync(with: file)
        return true
    }

    /// ``syncWithFile()`` for callers that cannot throw: a failed look is recorded, and the feed's
    /// writes still compare the row in their transactions.
    func syncWithFileRecordingErrors() {
        do {
            try syncWithFile()
        } catch {
            recordError(FeedError(error))
        }
    }

    /// Takes the feed's rows and state from the file when another `Feed` wrote it since this one
    /// last did; the snapshot then reloads as a whole. Nothing happens when the file says what this
    /// feed already holds.
    ///
    /// A writer that left rows under pending edits without re-applying them (`pagedb`, an older
    /// version of the app) is caught up here: the edits are re-applied through the feed's writer.
    func resync(with file: FeedRecord?) {
        guard let file, file != loaded.record else { return }
        do {
            let pending = try queue.read { store in try store.pendingEditRows(of: file) }
            if !pending.edits.isEmpty || !pending.malformed.isEmpty, !queue.isReadOnly,
                let commit = try write(creatingFeed: false, { _, feed in .unchangedRows(feed) })
            {
                return try apply(commit)
            }
            try apply(Commit(record: file, change: .fullReload, window: .reload).overForeignWrite())
        } catch {
            recordError(FeedError(error))
        }
    }
}

extension Feed {
    /// Follows another open `Feed`'s write of this feed, told as it committed (see ``LiveFeeds``).
    ///
    /// The feed's row and the window's rows are read in one transaction, so they are one state of
    /// the file. When this feed held the rows the write started from, and that state is the one the
    /// write left, the snapshot takes the write's own change: the exact batch. Otherwise (this feed
    /// was behind, or more writes followed) it takes the file's rows in one full reload.
    ///
    /// Following only reads: the writer re-applied the pending edits in its own transaction, and a
    /// list that wrote in answer to another's write would be a writer nobody asked for. So rows that
    /// do not decode, or a failed look, are left to the feed's next read or write, which looks again.
    func follow(_ written: WrittenFeed) {
        guard written.after != loaded.record, !queue.isClosed else { return }
        let key = self.key
        let (window, start) = (loaded.window, loaded.window.start)
        let read: (record: FeedRecord, rows: [StoredItem], start: Int)?
        do {
            read = try queue.read { store in
                guard let file = try store.feed(key: key) else { return nil }
                let rows = try window.read(of: file, from: start, in: store)
                return (file, rows.stored, rows.start)
            }
        } catch {
            return
        }
        let file = read?.record ?? loaded.record.deleted
        guard file != loaded.record else { return }
        let decoded = LoadedRows.decoding(read?.rows ?? [], codec: codec)
        guard decoded.undecodable.isEmpty else { return }
        var commit = Commit(record: file, change: written.change, window: .read(decoded.rows, start: read?.start ?? 0))
        if file != written.after || written.before != loaded.record || written.change.isFullReload {
            commit.change = .fullReload
        }
        // The writer's generation and pending edits are the file's now.
        commit.adoptsFile = true
        try? apply(commit)
    }
}

extension FeedRecord {
    /// This feed as it is once deleted from the file: no rows, cursors or state; its next write
    /// creates its row again.
    var deleted: FeedRecord {
        FeedRecord(
            id: id, key: key, newestCursor: nil, oldestCursor: nil, endReached: false, rowCount: 0, topPosition: nil,
            bottomPosition: nil, lastRefreshAt: nil, lastError: nil, generation: generation, loaded: false,
            hasSections: false, policy: policy, changeCount: changeCount &+ 1)
    }
}
