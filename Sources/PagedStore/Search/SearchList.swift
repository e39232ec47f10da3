import Foundation

/// A search of the cache as a live list: the results of one query, loaded a window at a time, that
/// follow every write to the file as exact changes, whoever writes it.
///
/// A refresh that brings a matching post inserts it into the open results; an edit that stops
/// matching deletes it; a post edited in place reloads; another store or process (an app
/// extension, `pagedb`) writing the file reaches the list as this store's own writes do. Open one
/// with ``FeedStore/searchList(_:as:in:order:pageSize:codec:)``.
///
/// ```swift
/// let search = try store.searchList("swift conc", as: Status.self)
/// for await snapshot in await search.snapshots {
///     dataSource.apply(snapshot.results.map(\.listID))   // or snapshot.change, for a batch update
/// }
/// ```
///
/// The first window holds `pageSize` results; ``loadMore()`` adds the next window, which starts
/// after the last result loaded (a keyset, not an offset: results that came or went above it do
/// not shift it); in relevance order after a write, which moves every rank, it is the best results
/// not loaded yet. After a write an observed list reads again as many results as it holds, and the
/// change is the difference of the two reads.
public actor SearchList<Item: FeedItem> {
    /// What the person typed.
    public nonisolated let text: String
    nonisolated let queue: DatabaseQueue
    private let scope: Scope
    private let codec: ItemCodec<Item>
    /// The matches the last read found, decodable or not: the next window starts after the last.
    private var matches: [CachedSearch.Match]
    /// What the file had committed when the matches were read (taken before the read: a write
    /// between them only makes the next window read from the first result).
    private var readMark: DatabaseQueue.WriteMark?
    private var latest: SearchSnapshot<Item>
    private var subscribers: [Int: AsyncStream<SearchSnapshot<Item>>.Continuation] = [:]
    private var nextSubscriber = 0
    /// Who the list is among the file's followers (see ``LiveFeeds``).
    private nonisolated let follower = LiveFeeds.shared.newFollower()
    private var following = false
    /// The handler that ends the list when its store closes, forgotten when the list goes (a
    /// search per keystroke opens many).
    private var closeHandler: Int?

    /// What one read of the cache searches: the query, the feeds, the order and a window's size.
    struct Scope: Sendable {
        var text: String
        var feeds: [String]?
        var order: SearchOrder
        var pageSize: Int
        var fields: [String]

        /// The `limit` matches after `after` (nil: from the first).
        func read(_ queue: DatabaseQueue, after: CachedSearch.Match?, limit: Int) throws -> [CachedSearch.Match] {
            try queue.read { store in
                try CachedSearch.find(
                    text, in: store, feeds: feeds, recent: order == .recency, after: after, limit: limit,
                    fields: fields)
            }
        }
    }

    /// Runs on its store's storage executor, as the feeds do: it reads the file without a hop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        queue.executor.asUnownedSerialExecutor()
    }

    /// Opens the list with its first window read.
    init(queue: DatabaseQueue, scope: Scope, codec: ItemCodec<Item>) throws {
        self.text = scope.text
        self.queue = queue
        self.scope = scope
        self.codec = codec
        readMark = try? queue.writeMark()
        matches = try scope.read(queue, after: nil, limit: scope.pageSize)
        latest = SearchSnapshot(
            results: Self.results(of: matches, codec: codec), change: FeedChange(),
            hasMore: matches.count == scope.pageSize, error: nil, sequence: 0)
    }

    deinit {
        if let file = queue.file { LiveFeeds.shared.stopFollowing(follower, file: file) }
        if let closeHandler { queue.removeCloseHandler(closeHandler) }
    }

    /// The results now, as the last read found them.
    public var snapshot: SearchSnapshot<Item> { latest }

    /// The current snapshot at once, then one after every change of the results, until the list
    /// or its store closes. The list follows the file's writes while anyone iterates a stream.
    public var snapshots: AsyncStream<SearchSnapshot<Item>> {
        let (stream, continuation) = AsyncStream.makeStream(of: SearchSnapshot<Item>.self)
        let id = nextSubscriber
        nextSubscriber += 1
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        // Read before it subscribes: what changed while nobody followed reaches it as its first.
        reread()
        subscribers[id] = continuation
        continuation.yield(latest)
        endWhenTheStoreCloses()
        followWhileObserved()
        return stream
    }

    /// Loads the next window of results below the last one; nothing when ``SearchSnapshot/hasMore``
    /// is false.
    public func loadMore() {
        guard latest.hasMore || latest.error != nil else { return }
        do {
            let next = try nextWindow()
            let old = latest.results.count
            matches += next
            // Ranks move with every write (bm25 weighs each word by the whole index), so a result
            // already loaded can rank below the last one now: it is not listed twice.
            let loaded = Set(latest.results.map(\.listID))
            let added = Self.results(of: next, codec: codec).filter { !loaded.contains($0.listID) }
            publish(
                latest.results + added,
                change: FeedChange(insertedRows: (old..<(old + added.count)).map { [0, $0] }),
                hasMore: next.count == scope.pageSize)
        } catch {
            publish(failure: FeedError(error))
        }
    }

    /// The window after the matches loaded. In relevance order, once anyone wrote the file since
    /// they were read, ranks have moved (bm25 weighs each word by the whole index): the last match's
    /// rank no longer places it, and the window is the best matches not loaded yet, read from the
    /// first. Otherwise, and always in recency order, it starts after the last match (a keyset).
    private func nextWindow() throws -> [CachedSearch.Match] {
        let mark = try? queue.writeMark()
        defer { readMark = mark }
        guard scope.order == .relevance, mark == nil || mark != readMark else {
            return try scope.read(queue, after: matches.last, limit: scope.pageSize)
        }
        let loaded = Set(matches.map(\.position.doc))
        let (limit, overflow) = matches.count.addingReportingOverflow(scope.pageSize)
        let best = try scope.read(queue, after: nil, limit: overflow ? Int.max : limit)
        return Array(best.filter { !loaded.contains($0.position.doc) }.prefix(scope.pageSize))
    }

    /// Stops following the file and ends every stream of snapshots.
    public func close() {
        stopFollowing()
        for continuation in subscribers.values { continuation.finish() }
        subscribers = [:]
    }

    // MARK: - Following

    /// Reads as many results as the list holds again, and publishes how they changed. A list that
    /// holds every result reads a window more: new matches join it rather than push its last ones
    /// out, where a list with more below keeps its length.
    private func reread() {
        let limit = max(scope.pageSize, matches.count) + (latest.hasMore ? 0 : scope.pageSize)
        do {
            readMark = try? queue.writeMark()
            let now = try scope.read(queue, after: nil, limit: limit)
            let results = Self.results(of: now, codec: codec)
            let change = SearchResultsChange.between(Self.entries(latest.results), Self.entries(results))
            matches = now
            publish(results, change: SearchResultsChange.feedChange(change), hasMore: now.count == limit)
        } catch {
            // The store closed while it read (a write's nudge raced the close): the streams end
            // with the results they showed, not with a failure of their own ending.
            guard !queue.isClosed else { return }
            publish(failure: FeedError(error))
        }
    }

    private func publish(_ results: [SearchResult<Item>], change: FeedChange, hasMore: Bool) {
        guard change != FeedChange() || hasMore != latest.hasMore || latest.error != nil else { return }
        send(
            SearchSnapshot(
                results: results, change: change, hasMore: hasMore, error: nil, sequence: latest.sequence + 1))
    }

    private func publish(failure: FeedError) {
        guard failure != latest.error else { return }
        send(
            SearchSnapshot(
                results: latest.results, change: FeedChange(), hasMore: latest.hasMore, error: failure,
                sequence: latest.sequence + 1))
    }

    private func send(_ snapshot: SearchSnapshot<Item>) {
        latest = snapshot
        for continuation in subscribers.values { continuation.yield(snapshot) }
    }

    private func removeSubscriber(_ id: Int) {
        subscribers[id] = nil
        if subscribers.isEmpty { stopFollowing() }
    }

    /// A closed store follows nothing, and a loop over the list's snapshots ends with it.
    private func endWhenTheStoreCloses() {
        guard closeHandler == nil else { return }
        let (follower, file) = (follower, queue.file)
        closeHandler = queue.onClose { [weak self] in
            if let file { LiveFeeds.shared.stopFollowing(follower, file: file) }
            Task { await self?.close() }
        }
        if closeHandler == nil { close() }
    }

    /// Follows every write to the file, by any store or process, while a stream is iterated.
    private func followWhileObserved() {
        guard !following, let file = queue.file, !queue.isClosed else { return }
        following = true
        let nudges = LiveFeeds.shared.followEveryWrite(follower, file: file)
        Task { [weak self] in
            for await _ in nudges { await self?.followed() }
        }
        LiveFeeds.shared.setObserved(true, follower: follower, file: file, path: queue.resolvedPath)
    }

    private func stopFollowing() {
        guard following, let file = queue.file else { return }
        following = false
        LiveFeeds.shared.stopFollowing(follower, file: file)
    }

    /// Someone wrote to the file: what the search finds may have changed.
    private func followed() {
        guard following, !queue.isClosed else { return }
        reread()
    }

    // MARK: - Reading results

    /// The results of `matches` whose rows decode; the others are left out.
    private static func results(of matches: [CachedSearch.Match], codec: ItemCodec<Item>) -> [SearchResult<Item>] {
        matches.compactMap { match in
            guard let item = try? codec.decode(match.item.payload) else { return nil }
            return SearchResult(feedKey: match.feedKey, id: match.id, item: item, match: match)
        }
    }

    private static func entries(_ results: [SearchResult<Item>]) -> [SearchResultsChange.Entry] {
        results.map { SearchResultsChange.Entry(id: $0.listID, version: $0.match.item.payload) }
    }
}
