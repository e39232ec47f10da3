import Foundation

/// Following what another `Feed` (a second store, an app extension, another process, a second
/// screen on the same key) wrote to this feed.
///
/// Two marks say whether there is anything to follow. ``DatabaseQueue/WriteMark`` (SQLite's
/// `data_version` and the writes of this store's connection) tells in one statement that nobody
/// wrote the file at all, the usual case; when someone did, the feed's row says whether it was this
/// feed: its ``FeedRecord/changeCount`` is bumped by every write, also one that changed only an
/// item's content. The change record then says what changed (``ChangeChain``): the list takes the
/// exact change, or its rows whole when the record does not cover the way from the row it holds. It
/// reads its window again to check the change against it, unless the change only reloads rows:
/// then it reads those rows of its window (``WindowFollowRule``).
///
/// Writes compare the row inside their own transaction (see ``FeedWriter``); reads call
/// ``syncWithFile(mayWrite:)``; a nudge from ``LiveFeeds`` calls it to follow by reading only.
extension Feed {
    /// Takes another writer's changes of this feed, if any: nothing but one cheap statement when
    /// nobody wrote the file.
    ///
    /// Run it before reading the feed, or after a read that ran without a transaction: a read made
    /// before an unchanged mark saw the rows this feed holds.
    /// - Parameter mayWrite: Whether following runs for the feed's own read or write, which may
    ///   write: remove rows the codec cannot decode in the followed change, and re-apply pending
    ///   edits that a writer which does not record left unapplied. A nudge follows by reading only
    ///   (a list that rewrote the feed in answer to another's write would be a writer nobody asked
    ///   for); rows it cannot decode go as ``UndecodableFollowRule`` says: an observed list removes
    ///   them with a write of its own before it follows, one nobody observes leaves the follow to its
    ///   next read or write.
    /// - Returns: Whether the file's row was not the one this feed held.
    @discardableResult
    func syncWithFile(mayWrite: Bool = true) throws -> Bool {
        let mark = try queue.writeMark()
        guard mark != loaded.writeMark else { return false }
        let followed = try followFile(mayWrite: mayWrite)
        // The mark is the one read before the file: a write in between changes it again, and is
        // followed next time. A follow left to a later read keeps the old mark, so that read looks.
        if followed != .leftForLater { loaded.writeMark = mark }
        return followed != .unchanged
    }

    /// ``syncWithFile(mayWrite:)`` for callers that cannot throw: a failed look is recorded, and the
    /// feed's writes still compare the row in their transactions.
    func syncWithFileRecordingErrors() {
        do {
            try syncWithFile()
        } catch {
            recordError(FeedError(error))
        }
    }

    /// ``followFile(mayWrite:wholeWindow:)`` for callers that cannot throw: a failed look is recorded.
    func followFileRecordingErrors() {
        do {
            _ = try followFile(mayWrite: true)
        } catch {
            recordError(FeedError(error))
        }
    }

    /// What ``followFile(mayWrite:wholeWindow:)`` did.
    enum Followed {
        /// The file's row is the one the feed holds.
        case unchanged
        /// The feed took the file's rows.
        case followed
        /// The file's rows need a write first, left to the feed's next read or write
        /// (``UndecodableFollowRule/Plan/leaveForLater``).
        case leftForLater
    }

    /// One state of the file, read in one transaction: the feed's row, the change from the row the
    /// feed held (nil when the record does not cover it), and the window's rows, or only the rows
    /// the change reloaded in it (``WindowFollowRule``) with their offsets in the window.
    private struct FileState {
        var record: FeedRecord
        var change: RowChange?
        var rows: [StoredItem]
        var start: Int
        var reloaded: [(offset: Int, row: StoredItem)]?
        /// The outbox history's drops recorded since the feed last looked (``DroppedEditsSeen``).
        var drops: [(seq: Int64, feedKey: String, edit: MalformedPendingEdit)] = []
    }

    /// Takes the file's state of the feed when its row is not the one the feed holds.
    ///
    /// The row, the recorded change and the window's rows are read in one transaction, so they are
    /// one state of the file, and the snapshot's change applies exactly to the rows it shows.
    /// - Parameter wholeWindow: Whether to read the whole window even for a change that only
    ///   reloads rows: one of those rows did not decode, and the window's read meets it.
    func followFile(mayWrite: Bool, wholeWindow: Bool = false) throws -> Followed {
        let held = loaded.record
        let key = self.key
        let (window, start) = (loaded.window, loaded.window.start)
        let dropsMark = dropsSeen.mark
        let state = try queue.read { store -> FileState? in
            // Another writer's write of this feed may have dropped queued edits of it: the history
            // says; read only when the feed changed, never for writes of other feeds.
            let file = try store.feed(key: key)
            guard file != held else { return nil }
            let drops = try dropsMark.map { try store.droppedEdits(after: $0) } ?? []
            guard let file else {
                // Another writer deleted the feed (`pagedb delete`): every row it held is gone.
                let emptied = RowChange(deleted: Array(0..<max(held.rowCount, 0)))
                return FileState(record: held.deleted, change: emptied, rows: [], start: 0, drops: drops)
            }
            let change = try ChangeChain.change(from: held, to: file, in: store)
            if !wholeWindow, let reloaded = try Self.readReloadedRows(of: change, from: held, to: file, window, store) {
                return FileState(
                    record: file, change: change, rows: [], start: start, reloaded: reloaded, drops: drops)
            }
            let rows = try window.read(of: file, from: start, in: store)
            return FileState(record: file, change: change, rows: rows.stored, start: rows.start, drops: drops)
        }
        guard let state else { return .unchanged }
        reportDropEvents(dropsSeen.toReport(state.drops, feedKey: key))
        let decoded: (rows: LoadedRows<Item>, undecodable: [UndecodableRow])
        if let reloaded = state.reloaded {
            guard let rows = Self.patching(window.rows, with: reloaded, codec: codec) else {
                return try followFile(mayWrite: mayWrite, wholeWindow: true)
            }
            decoded = (rows, [])
        } else {
            decoded = LoadedRows.decoding(state.rows, codec: codec, keeping: window)
        }
        if state.change == nil, mayWrite, try reapplyPendingEdits(from: held, after: state.record) {
            return .followed
        }
        if !decoded.undecodable.isEmpty {
            switch UndecodableFollowRule.plan(
                readOnly: queue.isReadOnly, callerMayWrite: mayWrite, observed: isObserved)
            {
            case .leaveForLater: return .leftForLater
            case .removeThenFollow:
                // Each round removes rows, so it ends; rows another writer moved meanwhile are that
                // writer's nudge's to meet.
                guard try removeBeforeFollowing(decoded.undecodable, foundIn: state.record) else {
                    return .leftForLater
                }
                return try followFile(mayWrite: mayWrite)
            case .stopWindowAbove, .removeInTheChange: break
            }
            // The commit's window read stops above them, and removes them in the same change when
            // the store is writable.
            var commit = Commit(record: state.record, change: state.change ?? .fullReload, window: .reload)
            commit.adoptsFile = true
            commit.followed = Commit.FollowedWrite(state.change, from: held, to: state.record)
            try apply(commit)
            return .followed
        }
        // `apply` checks the change against the rows before and after (``RowChange/checked(from:to:)``).
        let change = state.change ?? .fullReload
        var commit = Commit(record: state.record, change: change, window: .read(decoded.rows, start: state.start))
        // The writer's generation and pending edits are the file's now.
        commit.adoptsFile = true
        commit.followed = Commit.FollowedWrite(state.change, from: held, to: state.record)
        try apply(commit)
        return .followed
    }

    /// The rows `change` reloaded in `window`, read by id, when ``WindowFollowRule`` says those
    /// are all a follow reads; nil when the window must be read again: the rule says so, or a row
    /// is no longer the one the window holds there, with its section (the record did not tell the
    /// whole change).
    private static func readReloadedRows(
        of change: RowChange?, from held: FeedRecord, to file: FeedRecord, _ window: RowWindow<Item>,
        _ store: PageStore
    ) throws -> [(offset: Int, row: StoredItem)]? {
        let plan = WindowFollowRule.plan(
            for: change, heldRows: held.rowCount, fileRows: file.rowCount, windowStart: window.start,
            windowCount: window.rows.count, capacity: window.capacity,
            holdsHandedOver: window.rows.keys.contains { $0.decodedFrom == nil })
        guard case .readRows(let offsets) = plan else { return nil }
        let keys = offsets.map { window.rows.keys[$0] }
        let found = try store.items(withIDs: keys.map(\.id), in: file)
        var rows: [(offset: Int, row: StoredItem)] = []
        for (offset, key) in zip(offsets, keys) {
            guard let row = found[key.id], row.position == key.position, row.section == key.section else { return nil }
            rows.append((offset, row))
        }
        return rows
    }

    /// `rows` with the `reloaded` ones decoded in place, or nil when one does not decode.
    private static func patching(
        _ rows: LoadedRows<Item>, with reloaded: [(offset: Int, row: StoredItem)], codec: ItemCodec<Item>
    ) -> LoadedRows<Item>? {
        var patched = rows
        for (offset, row) in reloaded {
            guard let item = try? codec.decode(row.payload) else { return nil }
            patched.replace(
                at: offset, item: item,
                key: RowKey(id: row.itemID, position: row.position, section: row.section, decodedFrom: row.payload))
        }
        return patched
    }

    /// Re-applies the file's pending edits through this feed's writer, when a writer that does not
    /// record its changes (`pagedb`, an older version of the app) may have left rows under pending
    /// edits without them. Returns whether it wrote (the write's commit took the file's rows).
    /// - Parameter held: The row the feed held, which the record did not lead from to `file`.
    private func reapplyPendingEdits(from held: FeedRecord, after file: FeedRecord) throws -> Bool {
        let pending = try queue.read { store in try store.pendingEditRows(of: file) }
        guard !pending.edits.isEmpty || !pending.malformed.isEmpty, !queue.isReadOnly,
            let commit = try write(creatingFeed: false, { _, feed in .unchangedRows(feed) })
        else { return false }
        try apply(commit)
        reportFollowed(.whole(reason: Commit.FollowedWrite.notRecorded(from: held, to: file)))
        return true
    }

    /// Tells the events that the feed took another writer's change: exact, or its rows whole.
    func reportFollowed(_ write: Commit.FollowedWrite) {
        switch write {
        case .recorded(let change):
            report(.followedOtherWriter, nil, generation: loaded.record.generation, rows: change.touchedRows)
        case .whole(let reason):
            report(
                .reloadedFromFile, nil, generation: loaded.record.generation, rows: loaded.record.rowCount,
                reason: reason)
        }
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
