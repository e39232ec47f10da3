import Foundation

/// A search screen as one live list: what the device holds, at once and offline, and the server's
/// search results, paginated, arriving into the same list as exact changes.
///
/// Its first snapshot shows the cache's matches (``FeedStore/searchList(_:as:in:order:pageSize:codec:)``)
/// before anything is fetched; ``start()`` asks the server, through a feed keyed by the query whose
/// source is the app's search endpoint, and the server's pages arrive as changes: server order wins
/// where both have an item, and the items only the device holds stay, marked
/// ``SearchFeedEntry/Origin/local``, below the server's (or above, see ``LocalMatchPlacement``).
/// The server's part is a feed like any other: its pages are cached under the query's key, load by
/// the server's cursors, and fail into its states (offline: the cache's matches, and a refresh
/// failed with its error). Typing a new query (``search(_:)``) supersedes the old one: a response to
/// the old query that arrives later is cached under its own key and never reaches the list.
///
/// ```swift
/// let search = try await store.searchFeed("swift", key: "search") { query in
///     StatusSearchSource(query: query)
/// }
/// Task { for await snapshot in await search.snapshots { show(snapshot) } }
/// await search.start()
/// try await search.search("swift concurrency")   // as the person types
/// ```
///
/// A query is the text as typed without the spaces around it: "swift " is "swift". The cache's part
/// reads its last word as still being typed, so a word that more than 1,000 cached items match lists
/// them most recently cached first (see ``SearchOrder/relevance``). A blank query asks the server
/// nothing.
public actor SearchFeed<Item: FeedItem> {
    /// The prefix of the key of each query's feed (see ``feedKey(of:)``).
    public nonisolated let key: String
    nonisolated let queue: DatabaseQueue
    private let parts: PartsOpener
    private let placement: LocalMatchPlacement
    private let prefetchDistance: Int
    /// The query shown, its two parts, and their snapshots as their streams brought them.
    private var current: Parts
    /// The rows of the last snapshot, with their versions.
    private var rows: [SearchFeedMerge.Row] = []
    /// How many changes each server row's feed reported for it, for its version.
    private var serverVersions: [String: Int] = [:]
    private var latest: SearchFeedSnapshot<Item>
    private var subscribers: [Int: AsyncStream<SearchFeedSnapshot<Item>>.Continuation] = [:]
    private var nextSubscriber = 0
    private var started = false
    private var closed = false
    /// Callers waiting for the parts' streams to bring what their calls did (see ``caughtUp()``).
    private var waiters: [CheckedContinuation<Void, Never>] = []
    /// The handler that ends the search when its store closes, forgotten when the search goes.
    private var closeHandler: Int?

    /// Opens the parts of a query: the server's feed and the cache's live search.
    struct PartsOpener: Sendable {
        /// The server's feed of a query, by the query and the feed's key.
        let server: @Sendable (_ query: String, _ feedKey: String) throws -> Feed<Item>
        /// The cache's live search of a query.
        let local: @Sendable (String) throws -> SearchList<Item>
    }

    /// One query's parts, the tasks that bring their snapshots, and the last snapshot each brought.
    private struct Parts {
        let query: String
        let generation: Int
        let server: Feed<Item>
        let local: SearchList<Item>
        var serverSnapshot: FeedSnapshot<Item>
        var localSnapshot: SearchSnapshot<Item>
        var tasks: [Task<Void, Never>] = []
        /// Whether a part's stream ended (its store closed): nothing more will come.
        var ended = false
    }

    /// Runs on its store's storage executor, as its feed and its live search do.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        queue.executor.asUnownedSerialExecutor()
    }

    /// Opens the search of `query` with both parts' snapshots as they are.
    init(
        query: String, key: String, queue: DatabaseQueue, parts: PartsOpener, placement: LocalMatchPlacement,
        prefetchDistance: Int
    ) async throws {
        self.key = key
        self.queue = queue
        self.parts = parts
        self.placement = placement
        self.prefetchDistance = prefetchDistance
        let opened = try await Self.open(Self.trimmed(query), generation: 0, key: key, parts: parts)
        current = opened
        latest = SearchFeedSnapshot(
            query: opened.query, entries: [], change: FeedChange(), server: opened.serverSnapshot,
            local: opened.localSnapshot, sequence: 0)
        await compose(first: true)
        follow()
        // A closed store shows nothing more: a loop over the search's snapshots ends with it.
        closeHandler = queue.onClose { [weak self] in
            Task { await self?.close() }
        }
        if closeHandler == nil { await close() }
    }

    deinit {
        for task in current.tasks { task.cancel() }
        if let closeHandler { queue.removeCloseHandler(closeHandler) }
    }

    /// The key of the feed that caches the server's results for `query`: the search feed's key and
    /// the query, as typed without the spaces around it.
    public nonisolated func feedKey(of query: String) -> String {
        Self.feedKey(of: Self.trimmed(query), key: key)
    }

    /// The newest snapshot.
    public var snapshot: SearchFeedSnapshot<Item> { latest }

    /// The current snapshot at once, then one after every change, until the search feed or its
    /// store closes (a stream asked for after that holds the last snapshot and ends).
    public var snapshots: AsyncStream<SearchFeedSnapshot<Item>> {
        let (stream, continuation) = AsyncStream.makeStream(of: SearchFeedSnapshot<Item>.self)
        continuation.yield(latest)
        guard !closed else {
            continuation.finish()
            return stream
        }
        let id = nextSubscriber
        nextSubscriber += 1
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        subscribers[id] = continuation
        return stream
    }

    /// Asks the server, as its feed's policy says (see ``Feed/start()``); call it once when the
    /// list appears. Later queries start by themselves. Returns once the list shows the answer.
    public func start() async {
        started = true
        await startServer()
    }

    /// Shows the results of `query` instead: the cache's at once, then the server's (once
    /// ``start()`` was called). The old query's fetches go on unheard. Returns once the list shows
    /// the new query's server answer (or failure).
    /// - Throws: ``FeedError`` when the cache cannot be read; the list shows the old query still.
    public func search(_ query: String) async throws {
        let query = Self.trimmed(query)
        guard query != current.query, !closed else { return }
        let opened: Parts
        do {
            opened = try await Self.open(query, generation: current.generation + 1, key: key, parts: parts)
        } catch {
            throw FeedError(error)
        }
        let old = current
        for task in old.tasks { task.cancel() }
        current = opened
        serverVersions = [:]
        resumeWaiters()
        await old.local.close()
        await compose(first: false)
        follow()
        if started { await startServer() }
    }

    /// Pulls to refresh the server's results (see ``Feed/refresh()``).
    public func refresh() async {
        guard !current.query.isEmpty else { return }
        await current.server.refresh()
        await caughtUp()
    }

    /// Repeats what failed in the server's part (see ``Feed/retry()``).
    public func retry() async {
        guard !current.query.isEmpty else { return }
        await current.server.retry()
        await caughtUp()
    }

    /// Loads more: the server's next page while it has one, then the cache's next window (the
    /// other way round when the local matches are above). Nothing when neither has more.
    public func loadNextPage() async {
        switch nextWindow() {
        case .server: await current.server.loadNextPage()
        case .local: await current.local.loadMore()
        case .none: return
        }
        await caughtUp()
    }

    /// Tells the search that `row` of its entries became visible: a server row moves its feed's
    /// window there and prefetches its next page (see ``Feed/rowDidAppear(_:)``); a row near the
    /// end of the cache's run loads its next window once the server has no more to give first.
    public func rowDidAppear(_ row: Int) async {
        let counts = SearchFeedMerge.Counts(
            server: latest.server.rows.count, local: latest.entries.count - latest.server.rows.count)
        if case .server(let serverRow) = SearchFeedMerge.place(ofRow: row, counts: counts, placement: placement) {
            await current.server.rowDidAppear(serverRow)
        }
        let loadsMore = SearchFeedMerge.loadsLocalMore(
            afterRow: row, counts: counts, placement: placement, hasMore: latest.local.hasMore,
            prefetchDistance: prefetchDistance)
        if loadsMore, nextWindow() == .local {
            await current.local.loadMore()
            await caughtUp()
        }
    }

    /// Stops following the file and ends every stream of snapshots.
    public func close() async {
        closed = true
        for task in current.tasks { task.cancel() }
        resumeWaiters()
        await current.local.close()
        for continuation in subscribers.values { continuation.finish() }
        subscribers = [:]
    }

    // MARK: - The parts

    private static func trimmed(_ query: String) -> String {
        query.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func feedKey(of query: String, key: String) -> String {
        key + "?q=" + query
    }

    private static func open(_ query: String, generation: Int, key: String, parts: PartsOpener) async throws -> Parts {
        let server = try parts.server(query, feedKey(of: query, key: key))
        let local = try parts.local(query)
        return Parts(
            query: query, generation: generation, server: server, local: local, serverSnapshot: await server.snapshot,
            localSnapshot: await local.snapshot)
    }

    /// Starts the server's part of the current query (a blank one asks nothing), and waits until
    /// the list shows what it did.
    private func startServer() async {
        guard !current.query.isEmpty else { return }
        await current.server.start()
        await caughtUp()
    }

    private func nextWindow() -> SearchFeedMerge.NextWindow {
        SearchFeedMerge.nextWindow(
            serverCanLoad: latest.serverHasMore, localHasMore: latest.local.hasMore, placement: placement)
    }

    /// Brings each part's snapshots to the list, in order, while the query is the current one.
    private func follow() {
        let (generation, server, local) = (current.generation, current.server, current.local)
        current.tasks = [
            Task { [weak self] in
                for await snapshot in await server.snapshots {
                    await self?.serverChanged(snapshot, generation: generation)
                }
                await self?.partEnded(generation: generation)
            },
            Task { [weak self] in
                for await snapshot in await local.snapshots {
                    await self?.localChanged(snapshot, generation: generation)
                }
                await self?.partEnded(generation: generation)
            },
        ]
    }

    /// Every snapshot of the server's part passes here in order: the ids it names changed count
    /// towards their rows' versions even when a newer snapshot is shown before this one.
    private func serverChanged(_ snapshot: FeedSnapshot<Item>, generation: Int) async {
        guard generation == current.generation, snapshot.sequence > current.serverSnapshot.sequence else { return }
        // A full reload names no row: any loaded one may have changed (rows outside the window have
        // no item shown to go stale).
        let changed =
            snapshot.change.isFullReload
            ? snapshot.rows.loadedRange.compactMap { snapshot.rows.id(at: $0) } : snapshot.change.reconfiguredIDs
        for id in changed { serverVersions[id, default: 0] += 1 }
        current.serverSnapshot = snapshot
        await compose(first: false)
        resumeWaiters()
    }

    private func localChanged(_ snapshot: SearchSnapshot<Item>, generation: Int) async {
        guard generation == current.generation, snapshot.sequence > current.localSnapshot.sequence else { return }
        current.localSnapshot = snapshot
        await compose(first: false)
        resumeWaiters()
    }

    private func partEnded(generation: Int) {
        guard generation == current.generation else { return }
        current.ended = true
        resumeWaiters()
    }

    /// Waits until both parts' streams have brought the snapshots their feeds hold now: a call
    /// that changed a part returns with the list showing it.
    private func caughtUp() async {
        let generation = current.generation
        while !closed, !current.ended, generation == current.generation {
            let server = await current.server.snapshot.sequence
            let local = await current.local.snapshot.sequence
            guard generation == current.generation,
                current.serverSnapshot.sequence < server || current.localSnapshot.sequence < local
            else { return }
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    private func resumeWaiters() {
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// Publishes the joined list of the parts' last snapshots, with its change from the last one.
    private func compose(first: Bool) async {
        let generation = current.generation
        let server = current.serverSnapshot
        let local = current.localSnapshot
        let serverIDs: [String]
        if server.rows.loadedRange == 0..<server.rows.count {
            serverIDs = server.rows.loadedRange.compactMap { server.rows.id(at: $0) }
        } else {
            // Rows outside the loaded window: their ids from the cache, never by decoding them. Nil
            // when the feed has moved on: its next snapshot, on its way, is shown instead.
            guard let identifiers = try? await current.server.identifiers(of: server) else { return }
            serverIDs = identifiers.all
        }
        guard generation == current.generation, server.sequence == current.serverSnapshot.sequence,
            local.sequence == current.localSnapshot.sequence
        else { return }
        let query = current.query
        let matches = Dictionary(local.results.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let serverRows = serverIDs.map { id in
            SearchFeedMerge.Row(
                id: id, version: SearchFeedMerge.version(query: query, server: serverVersions[id, default: 0]),
                isServer: true)
        }
        let localRows = local.results.map { result in
            SearchFeedMerge.Row(
                id: result.id, version: SearchFeedMerge.version(query: query, local: result.match.item.payload),
                isServer: false)
        }
        let joined = SearchFeedMerge.joined(server: serverRows, local: localRows, placement: placement)
        let serverRowOfID = Dictionary(serverIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let entries = joined.map { row in
            SearchFeedEntry(
                id: row.id,
                item: row.isServer ? serverRowOfID[row.id].flatMap { server.rows[$0] } : matches[row.id]?.item,
                origin: row.isServer ? .server : .local, match: matches[row.id])
        }
        let change = first ? FeedChange() : SearchFeedMerge.change(from: rows, to: joined)
        rows = joined
        let next = SearchFeedSnapshot(
            query: query, entries: entries, change: change, server: server, local: local,
            sequence: first ? 0 : latest.sequence + 1)
        latest = next
        for continuation in subscribers.values { continuation.yield(next) }
    }

    private func removeSubscriber(_ id: Int) {
        subscribers[id] = nil
    }
}
