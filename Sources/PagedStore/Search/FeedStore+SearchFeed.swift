import Foundation

/// A search screen: the cache's matches and the server's search results in one live list.
extension FeedStore {
    /// Opens a search of `query` as one live list: the cache's matches at once (offline too), then
    /// the server's results from `source` once ``SearchFeed/start()`` is called (see
    /// ``SearchFeed``).
    ///
    /// Each query's server results are a feed of this store, keyed by `key` and the query
    /// (``SearchFeed/feedKey(of:)``): cached like every feed's pages, kept by the store's budget,
    /// and shown at once when the same query is typed again.
    /// - Parameters:
    ///   - query: What the person typed.
    ///   - key: The prefix of each query's feed key: one per kind of search in the app.
    ///   - feeds: The keys of the feeds whose cached items the local part searches; nil, the
    ///     default, searches every feed (earlier queries' cached results among them).
    ///   - order: The local part's order: best match first (the default) or most recently cached.
    ///   - placement: Where the matches only the device holds go: below the server's (the default).
    ///   - policy: The policy of each query's feed; by default it asks the server when it starts.
    ///     Its ``FeedPolicy/firstScreenRows`` is also the size of the local part's windows.
    ///   - codec: How the items are stored.
    ///   - source: The app's source for the server's search endpoint, made for a query.
    /// - Throws: ``StorageError`` when the cache cannot be read.
    public func searchFeed<Source: PageSource>(
        _ query: String, key: String, in feeds: [String]? = nil, order: SearchOrder = .relevance,
        placement: LocalMatchPlacement = .below, policy: FeedPolicy = FeedPolicy(refreshOnOpen: .always),
        codec: ItemCodec<Source.Item>, source: @escaping @Sendable (String) -> Source
    ) async throws -> SearchFeed<Source.Item> {
        let parts = SearchFeed<Source.Item>.PartsOpener(
            server: { [self] query, feedKey in try feed(feedKey, source: source(query), policy: policy, codec: codec) },
            local: { [self] query in
                try searchList(
                    query, as: Source.Item.self, in: feeds, order: order, pageSize: policy.firstScreenRows, codec: codec
                )
            })
        return try await SearchFeed(
            query: query, key: key, queue: queue, parts: parts, placement: placement,
            prefetchDistance: policy.prefetchDistance)
    }

    /// ``searchFeed(_:key:in:order:placement:policy:codec:source:)`` for items stored with the JSON
    /// codec.
    public func searchFeed<Source: PageSource>(
        _ query: String, key: String, in feeds: [String]? = nil, order: SearchOrder = .relevance,
        placement: LocalMatchPlacement = .below, policy: FeedPolicy = FeedPolicy(refreshOnOpen: .always),
        source: @escaping @Sendable (String) -> Source
    ) async throws -> SearchFeed<Source.Item> where Source.Item: Codable {
        try await searchFeed(
            query, key: key, in: feeds, order: order, placement: placement, policy: policy, codec: .json,
            source: source)
    }
}
