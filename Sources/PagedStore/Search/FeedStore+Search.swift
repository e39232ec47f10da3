import Foundation

/// Searching what the cache holds: the items of every feed whose type declares
/// ``FeedItem/searchableFields``, offline, in one query.
extension FeedStore {
    /// The cached items that match `text`, as a person typed it.
    ///
    /// Any text is a valid query: every word must be found (case and accents folded: "cafe" finds
    /// "Café"), the last word as a prefix while it is being typed (no space after it), and text
    /// written without spaces (Japanese, Chinese) by any run of two or more of its characters.
    /// Quotes, `*`, `-`, `AND`, `OR`, `NOT`, `NEAR` and parentheses are words or separators, never
    /// operators. Text with no word to search for (spaces, punctuation, emoji) finds nothing.
    ///
    /// ```swift
    /// let found = try store.search("swift conc", as: Status.self)
    /// for result in found { print(result.feedKey, result.text[result.matchedRanges[0]]) }
    /// ```
    ///
    /// An item shared across feeds (``FeedItem/sharedItemType``) is one result. Rows the codec
    /// cannot decode are left out. It reads the file on the calling thread.
    /// - Parameters:
    ///   - text: What the person typed.
    ///   - type: The type of the items searched: its ``FeedItem/searchableFields`` are the text shown.
    ///   - feeds: The keys of the feeds to search; nil, the default, searches every feed.
    ///   - order: Best match first (the default) or most recently cached first.
    ///   - limit: The most results. Default 50.
    ///   - codec: How the items are stored; the JSON codec by default.
    public func search<Item: FeedItem>(
        _ text: String, as type: Item.Type, in feeds: [String]? = nil, order: SearchOrder = .relevance,
        limit: Int = 50, codec: ItemCodec<Item>
    ) throws -> [SearchResult<Item>] {
        let matches = try queue.read { store in
            try CachedSearch.find(
                text, in: store, feeds: feeds, recent: order == .recency, limit: limit, fields: Item.searchableFields)
        }
        return matches.compactMap { match in
            guard let item = try? codec.decode(match.item.payload) else { return nil }
            return SearchResult(feedKey: match.feedKey, id: match.id, item: item, match: match)
        }
    }

    /// ``search(_:as:in:order:limit:codec:)`` for items stored with the JSON codec.
    public func search<Item: FeedItem & Codable>(
        _ text: String, as type: Item.Type, in feeds: [String]? = nil, order: SearchOrder = .relevance,
        limit: Int = 50
    ) throws -> [SearchResult<Item>] {
        try search(text, as: type, in: feeds, order: order, limit: limit, codec: .json)
    }

    /// The cached items that match `text` as a live list: the first `pageSize` results at once, then
    /// every change a write by any store or process makes to them, as exact changes (see
    /// ``SearchList``). The query reads as ``search(_:as:in:order:limit:codec:)`` reads it.
    /// - Parameters:
    ///   - text: What the person typed.
    ///   - type: The type of the items searched: its ``FeedItem/searchableFields`` are the text shown.
    ///   - feeds: The keys of the feeds to search; nil, the default, searches every feed.
    ///   - order: Best match first (the default) or most recently cached first.
    ///   - pageSize: How many results a window holds: the first, and each ``SearchList/loadMore()``
    ///     adds. Default 50.
    ///   - codec: How the items are stored; the JSON codec by default.
    /// - Throws: ``StorageError`` when the first window cannot be read.
    public func searchList<Item: FeedItem>(
        _ text: String, as type: Item.Type, in feeds: [String]? = nil, order: SearchOrder = .relevance,
        pageSize: Int = 50, codec: ItemCodec<Item>
    ) throws -> SearchList<Item> {
        let scope = SearchList<Item>.Scope(
            text: text, feeds: feeds, order: order, pageSize: max(1, pageSize), fields: Item.searchableFields)
        return try SearchList(queue: queue, scope: scope, codec: codec)
    }

    /// ``searchList(_:as:in:order:pageSize:codec:)`` for items stored with the JSON codec.
    public func searchList<Item: FeedItem & Codable>(
        _ text: String, as type: Item.Type, in feeds: [String]? = nil, order: SearchOrder = .relevance,
        pageSize: Int = 50
    ) throws -> SearchList<Item> {
        try searchList(text, as: type, in: feeds, order: order, pageSize: pageSize, codec: .json)
    }
}
