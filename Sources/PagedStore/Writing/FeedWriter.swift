import Foundation

/// The one path by which a feed writes the file.
///
/// Every write of the engine is one call here, and one transaction: the plan (a merge, a next
/// page, a gap's fill, a trim, an edit) runs on the feed's row as the file has it; the pending
/// optimistic edits are re-applied on top of what it wrote ( ``PendingEditReplay``); and one
/// ``FeedCommit`` comes back, from which the snapshot's change set is built. A write that finds the
/// file changed by another `Feed` since this one last looked turns its change into one full reload.
///
/// It runs on the feed's storage executor, so no transaction is ever held across an `await`.
struct FeedWriter<Item: FeedItem>: Sendable {
    /// The feed's key in the cache.
    let key: String
    /// The store's one write path.
    let store: StoreWriter
    var queue: DatabaseQueue { store.queue }
    let codec: ItemCodec<Item>
    /// Who this writer is among the open feeds of the process (see ``LiveFeeds``): every write it
    /// commits is told to the others, not to itself.
    let follower: Int
    /// The name the feed's items are shared under (``FeedItem/sharedItemType``): the item type's,
    /// unless the caller knows it only at run time (`pagedb` reads it from the file).
    let sharedItemType: String?
    /// The fields search reads (``FeedItem/searchableFields``): the item type's, unless the caller
    /// knows them only at run time (`pagedb` keeps what the file records).
    let searchableFields: [String]
    /// Whether the feed leaves the policy its row records as it is: `pagedb` writes with the app's
    /// policy, and a text it cannot read (a newer app's, or damaged) must still tell the app its
    /// cache version, not a default one that would clear the app's rows at its next open.
    let keepsRecordedPolicy: Bool
    /// The policy the feed was opened with, as its row records it: a feed made again after another
    /// store deleted it records it too, so that its cache version still says which model wrote it.
    let policyText: String?

    init(
        key: String, store: StoreWriter, codec: ItemCodec<Item>, sharedItemType: String? = Item.sharedItemType,
        searchableFields: [String] = Item.searchableFields, keepsRecordedPolicy: Bool = false, policy: FeedPolicy? = nil
    ) {
        self.key = key
        self.store = store
        self.codec = codec
        self.sharedItemType = sharedItemType
        self.searchableFields = searchableFields
        self.keepsRecordedPolicy = keepsRecordedPolicy
        policyText = keepsRecordedPolicy ? nil : policy.map { PolicyJSON.shared.text(of: $0) }
        follower = LiveFeeds.shared.newFollower()
    }

    /// What one ``commit(over:creatingFeed:edits:_:)`` did.
    struct Written {
        /// The commit, pending edits re-applied; nil when the plan wrote nothing.
        var commit: FeedCommit<Item>?
        /// The feed's row as the file has it after the transaction (nil when the file has none).
        var file: FeedRecord?
        /// Whether pending edits remain in the file; nil when the write did not look.
        var pendingEditsRemain: Bool?
        /// Pending edit rows that could not be applied, deleted in the transaction, to report.
        var droppedEdits: [MalformedPendingEdit] = []
    }

    /// Runs `plan` on the feed's row in one write transaction, then re-applies the pending edits.
    ///
    /// - Parameters:
    ///   - shown: The feed's row as the caller last committed or read it: a file row that differs
    ///     was written by another `Feed`.
    ///   - creatingFeed: Whether a missing feed row is created (an edit, a refresh) or the write is
    ///     refused (a next page or a gap's fill of a feed someone deleted).
    ///   - edits: What the caller knows of its pending edits. They are read only when the caller may
    ///     have some or the file changed.
    ///   - plan: Writes the rows and returns the commit, with the copies of shared items it stored
    ///     (``FeedCommit/copies``), or nil to write nothing further.
    func commit(
        over shown: FeedRecord, creatingFeed: Bool = true, edits: OptimisticEdits<Item>,
        _ plan: (PageStore, inout FeedRecord) throws -> FeedCommit<Item>?
    ) throws -> Written {
        try transaction { store in
            guard var feed = creatingFeed ? try feedMadeIfMissing(in: store) : try store.feed(key: key) else {
                return (Written(file: nil), [])
            }
            let before = feed
            guard var commit = try plan(store, &feed) else {
                return (Written(file: feed), feed == before ? [] : [recorded(before, feed, .fullReload)])
            }
            let spread = try SharedItemSpread.spread(
                commit.copies, from: commit.record, in: store, carries: LiveFeeds.shared.carries(in: queue.file))
            if spread.rewroteWriterRows { commit.window = .reload }
            // The change is computed on the file's rows: exact for every feed that held them, even
            // when this one held others (another `Feed` wrote since it last looked).
            let foreign = before != shown
            var written = Written(file: commit.record)
            var restored: [RecordedWrite] = []
            if edits.mayHavePending || foreign {
                // Another writer's rows may be under any item's edits: all of them go again.
                if foreign { commit.onlyItem = nil }
                let replay = try replayPendingEdits(on: &commit, changes: edits.changes, in: store)
                written.file = commit.record
                written.pendingEditsRemain = replay.remaining > 0
                written.droppedEdits = replay.dropped
                // The other feeds sharing an item showed an update the replay dropped or detached.
                restored = try SharedItemSpread.spread(
                    replay.restored, from: commit.record, in: store, carries: LiveFeeds.shared.carries(in: queue.file)
                ).written
            }
            let recordedWrite = recorded(before, commit.record, commit.change)
            commit.writeMark = try queue.markOfRunningWrite(in: store)
            written.commit = foreign ? try Self.overForeignWrites(commit, from: shown, to: before, in: store) : commit
            return (written, [recordedWrite] + spread.written + restored + commit.otherFeeds)
        }
    }

    /// The feed's row, made again when missing (another store or `pagedb` deleted the feed while it
    /// was open) with the type and policy it records, so that its rows are shared and indexed as
    /// they were, and a later cache version clears them as the model's that wrote them.
    private func feedMadeIfMissing(in store: PageStore) throws -> FeedRecord {
        if let feed = try store.feed(key: key) { return feed }
        var feed = try store.ensureFeed(key: key)
        _ = try store.setSharedType(sharedItemType, of: &feed)
        _ = try store.setSearchFields(searchableFields, of: &feed)
        if let policyText {
            feed.policy = policyText
            try store.save(&feed)
        }
        return feed
    }

    /// Records a failed fetch in the feed's row, for `pagedb`.
    /// - Returns: The row as written, or nil when the file has no row for the feed.
    func record(error message: String) throws -> FeedRecord? {
        try transaction { store in
            guard var feed = try store.feed(key: key) else { return (nil, []) }
            let before = feed
            feed.lastError = message
            try store.save(&feed)
            return (feed, [recorded(before, feed, RowChange())])
        }
    }

    /// Saves the reader's place, when the file has the feed.
    func save(_ position: PageStore.SavedPosition) throws {
        try transaction { store in
            guard let feed = try store.feed(key: key) else { return ((), []) }
            try store.saveReadingPosition(position, in: feed)
            return ((), [])
        }
    }

    /// Makes the feed's row record `policy` (created when missing; emptied first when its recorded
    /// ``FeedPolicy/cacheVersion`` is another, its pending edits going as ``PendingEditFate`` says),
    /// then reads with `read` in the same transaction.
    /// - Returns: What `read` read, and the pending edits the emptying dropped, to report.
    func record<Read>(
        _ policy: FeedPolicy, then read: (PageStore, FeedRecord) throws -> Read
    ) throws -> (read: Read, droppedEdits: [MalformedPendingEdit]) {
        try transaction { store in
            var feed = try store.ensureFeed(key: key)
            let before = feed
            var change = RowChange()
            var dropped: [MalformedPendingEdit] = []
            var others: [RecordedWrite] = []
            let newModel =
                PolicyJSON.shared.cacheVersion(recordedIn: feed.policy).map { $0 != policy.cacheVersion } ?? false
            if newModel {
                var restored: [EncodedItem] = []
                dropped = try LeavingRowEdits.rowsLeave(
                    .modelChanged, in: feed, store: store, at: self.store.clock.date(), restoring: &restored)
                try store.clearFeed(&feed)
                change.deleted = Array(0..<max(before.rowCount, 0))
                // The other feeds sharing an item showed its dropped update: they show the server's
                // copy again.
                others = try SharedItemSpread.spread(
                    restored, from: feed, in: store, carries: LiveFeeds.shared.carries(in: queue.file)
                ).written
            }
            if !keepsRecordedPolicy || feed.policy == nil { feed.policy = PolicyJSON.shared.text(of: policy) }
            try recordDeclarations(of: &feed, in: store, newModel: newModel)
            try store.save(&feed)
            return ((try read(store, feed), dropped), [recorded(before, feed, change)] + others)
        }
    }

    /// Records the item type's shared name and searchable fields in the feed's row, as
    /// ``RecordedDeclarations`` says.
    private func recordDeclarations(of feed: inout FeedRecord, in store: PageStore, newModel: Bool) throws {
        let (shared, fields) = declarations(over: feed, in: store, newModel: newModel)
        _ = try store.setSharedType(shared, of: &feed)
        _ = try store.setSearchFields(fields, of: &feed)
    }

    /// The shared name and searchable fields `feed`'s row records once this writer's type opens it
    /// (``RecordedDeclarations``).
    func declarations(
        over feed: FeedRecord, in store: PageStore, newModel: Bool = false
    ) -> (shared: String?, fields: [String]) {
        (
            RecordedDeclarations.recorded(sharedItemType, over: feed.sharedType, newModel: newModel),
            RecordedDeclarations.recordedFields(
                searchableFields, over: feed.searchFields.map(store.searchFieldList) ?? [], newModel: newModel)
        )
    }

    /// Removes `rows` (rows the codec cannot decode) where they still are, their pending edits going
    /// as ``PendingEditFate`` says, then reads with `read` in the same transaction.
    /// - Parameter shown: The feed's row as the caller holds it, or nil while it opens.
    /// - Returns: The rows removed with their indices before the removal (ascending), whether the
    ///   file's row was not `shown` (another `Feed` wrote: the indices are not those of the rows
    ///   shown), what `read` read, and the pending edits dropped, to report.
    func remove<Read>(
        undecodable rows: [UndecodableRow], over shown: FeedRecord?, inARefreshedPage: Bool = false,
        then read: (PageStore, FeedRecord) throws -> Read
    ) throws -> UndecodableRemoval<Read> {
        try transaction { store in
            var feed = try feedMadeIfMissing(in: store)
            let before = feed
            let foreign = shown.map { $0 != feed } ?? false
            let (removed, dropped, restored) = try UndecodableRow.remove(
                rows, from: &feed, in: store, at: self.store.clock.date(), inARefreshedPage: inARefreshedPage)
            let change = RowChange(deleted: removed.map(\.index))
            // The other feeds sharing an item showed its dropped update: they show the server's copy again.
            let others = try SharedItemSpread.spread(
                restored, from: feed, in: store, carries: LiveFeeds.shared.carries(in: queue.file)
            ).written
            return (
                UndecodableRemoval(
                    removed: removed, overForeignWrite: foreign, read: try read(store, feed), droppedEdits: dropped),
                (feed == before ? [] : [recorded(before, feed, change)]) + others
            )
        }
    }

    /// `commit` for a feed that held `shown` while the file had moved on to `before` (another
    /// `Feed` wrote): the recorded writes from `shown` to `before` and the commit's own change as one
    /// exact change, or one full reload when the record does not cover them. Either way the feed
    /// takes the file's rows, generation and pending edits.
    private static func overForeignWrites(
        _ commit: FeedCommit<Item>, from shown: FeedRecord, to before: FeedRecord, in store: PageStore
    ) throws -> FeedCommit<Item> {
        var adopted = commit.overForeignWrite()
        if let missed = try ChangeChain.change(from: shown, to: before, in: store),
            let change = missed.followed(
                by: commit.change, oldCount: shown.rowCount, middleCount: before.rowCount,
                newCount: commit.record.rowCount)
        {
            adopted.change = change
        }
        return adopted
    }

    /// Records that the feed was opened now, for the store's budget (feeds opened longest ago are
    /// evicted first), unless the file recorded an open less than a minute ago: most opens then
    /// write nothing. Not a write of the feed's rows: no change is recorded.
    func recordOpened(lastRecorded: Date?) throws {
        let now = store.clock.date()
        if let lastRecorded, abs(now.timeIntervalSince(lastRecorded)) < 60 { return }
        // Not a reason to evict: the feed opening should not wait for it, and the write adds no row.
        try transaction(growing: false) { store in
            guard let feed = try store.feed(key: key) else { return ((), []) }
            try store.recordOpened(feed, at: now)
            return ((), [])
        }
    }

    /// Indexes up to `batch` rows of the feed's search backlog (rows written before its type declared
    /// searchable fields) in one write: the rows do not change, so no change is recorded.
    /// - Returns: How many rows it indexed, and where the backlog now starts (nil: none is left).
    func indexSearchBacklog(batch: Int) throws -> (indexed: Int, backlog: Int64?) {
        try transaction { store in
            guard var feed = try store.feed(key: key) else { return ((0, nil), []) }
            let indexed = try store.indexSearchBacklog(of: &feed, batch: batch)
            return ((indexed, feed.searchBacklog), [])
        }
    }

    /// Indexes again the rows other writers changed under the search index (see
    /// ``PageStore/repairSearchIndex()``), in one write. Nothing is recorded: no row changes, and
    /// the live searches follow every write.
    /// - Returns: How many rows it went through.
    func repairSearchIndex() throws -> Int {
        try transaction { store in (try store.repairSearchIndex(), []) }
    }

    /// The write path of this feed: ``StoreWriter/transaction(by:keepingWhole:growing:_:)`` for one
    /// feed (and the feeds its shared items spread to), with this feed's rows kept whole by the budget.
    /// - Parameters:
    /// - Parameter growing: Whether the write may grow the file (see ``StoreWriter``).
    private func transaction<Result>(
        growing: Bool = true, _ body: (PageStore) throws -> (Result, [RecordedWrite])
    ) throws -> Result {
        try store.transaction(by: follower, keepingWhole: key, growing: growing, body)
    }

    /// What the change record keeps of a write that took the feed's row from `before` to `after`.
    private func recorded(_ before: FeedRecord, _ after: FeedRecord, _ change: RowChange) -> RecordedWrite {
        RecordedWrite(before: before, after: after, change: change)
    }
}

/// What ``FeedWriter/remove(undecodable:over:inARefreshedPage:then:)`` did.
struct UndecodableRemoval<Read> {
    /// The rows removed, with their indices before the removal, ascending.
    var removed: [(index: Int, row: UndecodableRow)]
    /// Whether another `Feed` wrote since the caller's row: the indices are not those of its rows.
    var overForeignWrite: Bool
    /// What the caller read in the same transaction.
    var read: Read
    /// The pending edits dropped with the rows, to report.
    var droppedEdits: [MalformedPendingEdit]
}
