import Foundation

/// How search results are ordered.
public enum SearchOrder: Sendable, Equatable {
    /// The best matches first (SQLite FTS5's bm25 rank), then the most recently cached.
    case relevance
    /// The most recently cached first.
    case recency
}

/// One item a search of the cache found.
public struct SearchResult<Item: Sendable>: Sendable {
    /// The feed whose row shows it (for an item shared across feeds, found once, the first of them
    /// by key among the feeds searched).
    public let feedKey: String
    /// The item's id as the cache stores it.
    public let id: String
    /// The item, decoded from the cache.
    public let item: Item
    /// The item's searchable text as a person reads it (its declared fields, markup removed, one a
    /// line): what ``matchedRanges`` index.
    public let text: String
    /// Where the query's words are in ``text``, in order, for highlighting.
    public let matchedRanges: [Range<String.Index>]
}
