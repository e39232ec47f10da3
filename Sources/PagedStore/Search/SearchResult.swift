import Foundation

/// How search results are ordered.
public enum SearchOrder: Sendable, Equatable {
    /// The best matches first (SQLite FTS5's bm25 rank), then the most recently cached; the most
    /// recently cached first while the last word is being typed and more than 1,000 cached items
    /// match, counted in every searchable feed (ranking costs each keystroke a pass over all of
    /// them, whichever feeds the search lists).
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
    /// The result's identity in a list of results, unique among them (an item cached in two feeds
    /// whose type does not share it is a result in each): the id to give a diffable data source.
    public var listID: String { feedKey + "\u{1F}" + id }
    /// The match, whose text is read when asked for.
    let match: CachedSearch.Match

    /// The item's searchable text as a person reads it (its declared fields, markup removed, one a
    /// line): what ``matchedRanges`` index. Read from the cached row on each call.
    public var text: String { match.highlighted().text }

    /// Where the query's words are in ``text``, in order, for highlighting. Computed on each call:
    /// take it with ``text`` from ``highlighted()`` when both are needed.
    public var matchedRanges: [Range<String.Index>] { match.highlighted().ranges }

    /// ``text`` and ``matchedRanges`` read together, once.
    public func highlighted() -> (text: String, matchedRanges: [Range<String.Index>]) {
        let (text, ranges) = match.highlighted()
        return (text, ranges)
    }
}
