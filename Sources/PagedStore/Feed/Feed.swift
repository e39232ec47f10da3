import Foundation

/// One paginated list, cached in SQLite: safe to use from any task.
///
/// A feed serves its cached rows at once (the first snapshot holds them, before any fetch), refreshes
/// behind them, merges pull-to-refresh results on top with exact index paths, and loads older pages by
/// cursor. Every change arrives as a ``FeedSnapshot`` whose ``FeedSnapshot/change`` turns the previous
/// snapshot's rows into the new ones.
///
/// ```swift
/// let store = try FeedStore(path: cacheURL.path)
/// let feed = try store.feed("home", source: TimelineSource())
/// Task {
///     for await snapshot in await feed.snapshots {
///         dataSource.apply(snapshot)   // rows, states and the batch update
///     }
/// }
/// await feed.start()                  // refreshes if the cache is stale
/// ```
public actor Feed<Item: FeedItem> {
    /// What the feed is made of and never changes.
    nonisolated let context: FeedContext<Item>
    /// What the feed holds of its rows: its row as last committed, the loaded window, the sections
    /// and the gaps.
    var loaded: LoadedFeed<Item> {
        didSet { publishKeptRows() }
    }
    /// The window's end as last told to ``LiveFeeds``, which a store's budget never trims above.
    var publishedKeptRows = 0
    /// What the fetches are doing; the snapshot's activities, and what ``retry()`` repeats, derive from it.
    var activity: FeedActivity
    /// The tasks in flight, and the callers waiting for them.
    var running = RunningFetches()
    /// Optimistic edits waiting for their server call (see ``edit(id:_:commit:)``).
    var optimistic = OptimisticEdits<Item>() {
        didSet {
            if optimistic.changes.keys != oldValue.changes.keys { publishCarry() }
        }
    }
    /// The rows on screen as the app last reported them, and the saves of the reading position.
    var reader = ReaderPlace()
    /// How far the feed has looked at the outbox's history of drops (see ``DroppedEditsSeen``).
    var dropsSeen: DroppedEditsSeen
    /// The streams of snapshots, events and saved positions, and the newest snapshot.
    private var subscribers: FeedSubscribers<Item>

    /// The feed's key in the cache.
    public nonisolated var key: String { context.key }
    /// The feed's policy.
    public nonisolated var policy: FeedPolicy { context.policy }
    /// The newest snapshot.
    public var snapshot: FeedSnapshot<Item> { subscribers.latest }

    /// Feeds run on their store's storage executor, a serial queue of its own: SQLite calls block
    /// that thread (for up to the busy timeout, when another process holds the lock), never one of
    /// Swift's cooperative threads, and a feed reaches its connection without a hop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        queue.executor.asUnownedSerialExecutor()
    }

    /// Rows reported by ``enqueueRowDidAppear(_:)``, waiting to reach ``rowDidAppear(_:)`` in order.
    nonisolated var appearances: RowAppearances<Item> { context.appearances }
    var source: any PageSource<Item> { context.source }
    /// The one path by which the feed writes the file.
    nonisolated var writer: FeedWriter<Item> { context.writer }
    nonisolated var queue: DatabaseQueue { context.writer.queue }
    var codec: ItemCodec<Item> { context.writer.codec }
    /// The store's clock, the feed's only reading of the time.
    nonisolated var clock: StoreClock { context.writer.store.clock }

    /// Opens the feed and reads its cached rows; no fetch starts until ``start()`` or ``refresh()``.
    /// - Parameters:
    ///   - sharedItemType: The name its items are shared under (see ``FeedWriter/sharedItemType``).
    ///   - keepsRecordedPolicy: Whether it leaves the policy its row records as it is (see
    ///     ``FeedWriter/keepsRecordedPolicy``).
    init(
        key: String, source: any PageSource<Item>, policy: FeedPolicy, codec: ItemCodec<Item>, store: StoreWriter,
        outbox: Outbox? = nil, sharedItemType: String? = Item.sharedItemType,
        searchableFields: [String] = Item.searchableFields, keepsRecordedPolicy: Bool = false
    )
        throws
    {
        let writer = FeedWriter(
            key: key, store: store, codec: codec, sharedItemType: sharedItemType, searchableFields: searchableFields,
            keepsRecordedPolicy: keepsRecordedPolicy, policy: policy)
        context = FeedContext(
            key: key, policy: policy, source: source, writer: writer, appearances: RowAppearances<Item>(),
            outbox: WeakOutbox(outbox: outbox))
        // Read before the feed: a drop recorded meanwhile is reported by the next follow, not lost.
        dropsSeen = DroppedEditsSeen(mark: try writer.queue.read { store in try store.droppedEditsMark() })
        let (opened, rows, removed, droppedEdits) = try Self.openFeed(policy: policy, writer: writer)
        dropsSeen.reported(droppedEdits)
        var window = RowWindow<Item>(capacity: policy.windowSize)
        window.start = opened.windowStart
        window.rows = rows
        let loaded = LoadedFeed(
            record: opened.record, window: window, layout: opened.layout, gaps: opened.gaps)
        self.loaded = loaded
        activity = FeedActivity(generation: opened.record.generation)
        var anchor: ScrollAnchor?
        if let restored = opened.restored, window.rows.keys.indices.contains(restored.row - window.start) {
            let id = window.rows.keys[restored.row - window.start].id
            reader.visible = VisibleRows(
                first: restored.row, last: restored.row, firstID: id, offset: restored.offset, reportedAsRange: false)
            anchor = ScrollAnchor(itemID: id, rowBefore: nil, rowAfter: restored.row, offset: restored.offset)
        }
        subscribers = FeedSubscribers(
            latest: Self.snapshot(of: loaded, activity: activity, change: .none, anchor: anchor, sequence: 0))
        if let event = Self.removalEvent(removed, generation: opened.record.generation) {
            subscribers.undeliveredEvents = [event]
        }
        subscribers.undeliveredEvents += Self.droppedEvents(droppedEdits, generation: opened.record.generation)
        publishedKeptRows = window.end
        followOtherWriters(keptRows: window.end)
    }

    deinit {
        // Streams hold only their own continuation: nothing ends a loop over them but the feed.
        subscribers.finishAll()
        if let file = context.writer.queue.file {
            LiveFeeds.shared.stopFollowing(context.writer.follower, file: file)
        }
    }

    // MARK: - Observing

    /// The snapshots: the current one at once, then one for every change, in order.
    ///
    /// Each access makes a new stream. Consume it steadily: snapshots are buffered, never dropped,
    /// because each one's change applies to the one before it. A stream does not keep the feed: it
    /// ends when the last reference to the feed goes.
    public var snapshots: AsyncStream<FeedSnapshot<Item>> {
        let (stream, continuation) = AsyncStream.makeStream(of: FeedSnapshot<Item>.self)
        let id = subscribers.addSnapshots(continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        watchWhileObserved()
        return stream
    }

    /// Structured events: requests started, joined, superseded, committed and failed, with their
    /// generation, rows changed and duration. The stream ends when the last reference to the feed goes.
    public var events: AsyncStream<FeedEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: FeedEvent.self)
        let id = subscribers.addEvents(continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        return stream
    }

    /// A new events stream and how many events the feed had sent before it, so a test can wait
    /// until it has received every event sent since (``eventsSent``).
    package func countedEvents() -> (events: AsyncStream<FeedEvent>, sentBefore: Int) {
        let sentBefore = subscribers.eventsSent
        return (events, sentBefore)
    }

    /// How many events the feed has sent (see ``countedEvents()``).
    package var eventsSent: Int { subscribers.eventsSent }

    /// Whether anyone follows the snapshots.
    var isObserved: Bool { subscribers.observed }

    func removeSubscriber(_ id: Int) {
        subscribers.remove(id)
        if !isObserved { watchWhileObserved() }
    }

    func addPositionSubscriber(_ continuation: AsyncStream<ReadingPosition>.Continuation) -> Int {
        subscribers.addPositions(continuation)
    }

    func yieldSavedPosition(_ position: ReadingPosition) {
        subscribers.send(position)
    }

    /// Builds the snapshot from the current state and sends it to every subscriber.
    ///
    /// The first row on screen is followed through `change`; `jump` is an anchor to send instead
    /// (the reader moved to a saved position).
    func emit(_ change: RowChange = RowChange(), previousLayout: SectionLayout? = nil, anchor jump: ScrollAnchor? = nil)
    {
        let feedChange =
            change == RowChange() && previousLayout == nil
            ? FeedChange.none
            : SectionLayout.feedChange(change, from: previousLayout ?? loaded.layout, to: loaded.layout)
        let anchor = jump ?? (change == RowChange() ? nil : followAnchor(through: change))
        subscribers.send(
            Self.snapshot(
                of: loaded, activity: activity, change: feedChange, anchor: anchor, sequence: snapshot.sequence + 1))
    }

    /// Sends an event to every subscriber.
    func report(
        _ kind: FeedEvent.Kind, _ request: PageRequest?, generation: Int64, rows: Int = 0,
        since start: ContinuousClock.Instant? = nil, error: FeedError? = nil, itemIDs: [String] = [],
        reason: String? = nil
    ) {
        guard subscribers.hearEvents else { return }
        let event = FeedEvent(
            kind: kind, request: request, generation: generation, rowsChanged: rows,
            duration: start.map { clock.now() - $0 }, error: error, itemIDs: itemIDs, reason: reason)
        subscribers.send(event)
    }

    // MARK: - Derived state

    /// The snapshot of a state: every activity derived from the one activity value and the record.
    static func snapshot(
        of loaded: LoadedFeed<Item>, activity: FeedActivity, change: FeedChange, anchor: ScrollAnchor?, sequence: Int
    ) -> FeedSnapshot<Item> {
        let record = loaded.record
        let refresh: RefreshActivity
        var contentError: FeedError?
        switch activity.refresh {
        case .idle: refresh = .idle
        case .loading: refresh = .loading
        case .failed(let failure):
            refresh = .failed(failure.error)
            contentError = failure.error
        }
        let nextPage: NextPageActivity
        switch activity.nextPage {
        case .loading: nextPage = .loading
        case .failed(let failure): nextPage = .failed(failure.error)
        case .idle: nextPage = record.endReached ? .endReached : .idle
        }
        let feedGaps = loaded.gaps.map { gap in
            let state: GapActivity
            switch activity.phase(of: .gap(gap.record.id)) {
            case .idle: state = gap.record.unfillable ? .unfillable : .idle
            case .loading: state = .loading
            case .failed(let failure): state = .failed(failure.error)
            }
            return FeedGap(
                id: gap.record.id, afterRow: gap.afterRow, state: state,
                canFillFromBottom: gap.record.newerCursor != nil && !gap.record.unfillable)
        }
        return FeedSnapshot(
            rows: FeedRows(count: record.rowCount, windowStart: loaded.window.start, window: loaded.window.rows),
            content: content(record: record, error: contentError), refresh: refresh, nextPage: nextPage,
            sections: loaded.layout.sections, gaps: feedGaps, change: change, anchor: anchor,
            lastRefreshed: record.lastRefreshAt, sequence: sequence)
    }

    static func content(record: FeedRecord, error: FeedError?) -> ContentState {
        if record.rowCount > 0 { return .content }
        if record.loaded { return .empty }
        return error.map(ContentState.error) ?? .initialLoading
    }

    static func layout(of record: FeedRecord, in store: PageStore) throws -> SectionLayout {
        record.hasSections
            ? SectionLayout(runs: try store.sectionRuns(of: record))
            : SectionLayout(unsectionedRowCount: record.rowCount)
    }

    static func gaps(of record: FeedRecord, in store: PageStore) throws -> [(record: GapRecord, afterRow: Int)] {
        try store.gaps(of: record).map { gap in
            (gap, try store.rowCount(throughPosition: gap.abovePosition, in: record) - 1)
        }
    }

    /// Encodes items for storage, dropping repeated ids within one page (the first one wins).
    func encode(_ items: [Item]) throws -> (encoded: [EncodedItem], items: [Item]) {
        var seen = Set<String>(minimumCapacity: items.count)
        var encoded: [EncodedItem] = []
        var kept: [Item] = []
        encoded.reserveCapacity(items.count)
        kept.reserveCapacity(items.count)
        for item in items {
            let id = item.storedID
            guard seen.insert(id).inserted else { continue }
            do {
                encoded.append(EncodedItem(itemID: id, section: item.sectionKey, payload: try codec.encode(item)))
            } catch {
                throw FeedError(.codec, message: "The item \(id.debugDescription) cannot be encoded: \(error)")
            }
            kept.append(item)
        }
        return (encoded, kept)
    }
}

/// The JSON a feed's row records its policy as, and whether a recorded policy is the one a feed is
/// opened with: then opening only reads, so an extension or a second screen opening the feed leaves
/// the file, and the changes of the feeds already open, alone.
///
/// Keys are sorted, so one policy is always one text; a text written by an older version (keys in
/// another order) is compared by its decoded value, and still opens without a write. The last policy
/// and the texts known to record it are kept: encoding with `JSONEncoder` cost about a tenth of
/// opening a feed's first screen (FS-real), and an app opens its feeds with few policies.
final class PolicyJSON: @unchecked Sendable {
    // @unchecked: `last` is only touched with `lock` held.
    static let shared = PolicyJSON()
    private let lock = NSLock()
    private var last: (policy: FeedPolicy, json: String, alsoRecordedAs: String?)?

    /// The policy as the JSON recorded in the feed's row.
    func text(of policy: FeedPolicy) -> String {
        if let last = lock.withLock({ last }), last.policy == policy { return last.json }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: (try? encoder.encode(policy)) ?? Data(), as: UTF8.self)
        lock.withLock { last = (policy, json, nil) }
        return json
    }

    /// The ``FeedPolicy/cacheVersion`` of a feed row's recorded policy; nil when the row records none
    /// (a feed seeded by `pagedb`) or a text that does not decode.
    func cacheVersion(recordedIn recorded: String?) -> Int? {
        policy(recordedIn: recorded)?.cacheVersion
    }

    /// The policy a feed row records; nil when it records none or a text that does not decode.
    func policy(recordedIn recorded: String?) -> FeedPolicy? {
        guard let recorded else { return nil }
        return try? JSONDecoder().decode(FeedPolicy.self, from: Data(recorded.utf8))
    }

    /// Whether `recorded` (a feed row's policy) records `policy`: the same text, or a text that decodes
    /// to the same policy.
    func records(_ policy: FeedPolicy, as recorded: String?) -> Bool {
        guard let recorded else { return false }
        let json = text(of: policy)
        if recorded == json { return true }
        if lock.withLock({ last?.policy == policy && last?.alsoRecordedAs == recorded }) { return true }
        guard let decoded = try? JSONDecoder().decode(FeedPolicy.self, from: Data(recorded.utf8)), decoded == policy
        else { return false }
        lock.withLock { last = (policy, json, recorded) }
        return true
    }
}
