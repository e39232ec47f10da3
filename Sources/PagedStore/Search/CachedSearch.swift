import Foundation

/// One search of the cache, from what a person typed to the matches with their text and highlights:
/// the one path of ``FeedStore/search(_:as:in:order:limit:codec:)`` and `pagedb search`.
package enum CachedSearch {
    /// One match: the row that shows it. Its text and highlights are read from the row when asked
    /// for (``highlighted()``): a list shows a screen of results, and reads each one's text once.
    package struct Match: Sendable {
        /// The feed whose row shows it.
        package var feedKey: String
        /// The row.
        package var item: StoredItem
        /// The fields its text is read from.
        let fields: [String]
        /// The query that found it.
        let query: SearchQuery
        /// Where it stands in the order it was found in: the key the next window starts after.
        let position: SearchHitKey

        /// The item's id.
        package var id: String { item.itemID }

        /// Its searchable text as a person reads it (fields one a line, markup removed), and where
        /// the query's words are in it.
        package func highlighted() -> (text: String, ranges: [Range<String.Index>]) {
            let text = SearchText(payload: item.payload, fields: fields)?.display ?? ""
            return (text, SearchHighlight.ranges(in: text, of: query))
        }

        /// The text with the matched words in brackets, for a terminal.
        package func marked() -> String {
            let (text, ranges) = highlighted()
            var result = ""
            var index = text.startIndex
            for range in ranges {
                result += text[index..<range.lowerBound] + "[" + text[range] + "]"
                index = range.upperBound
            }
            return result + text[index...]
        }
    }

    /// The matches of `text` in `store`, best first (or most recently cached with `recent`; see
    /// ``SearchRanking`` for a word being typed that matches more than `broadPrefixMatches`).
    /// - Parameters:
    ///   - feeds: The keys of the feeds to search; nil for every feed.
    ///   - after: The last match of the window before, found in the same order; nil for the first.
    ///   - fields: The fields to read the text from; nil for those the match's feed records.
    package static func find(
        _ text: String, in store: PageStore, feeds: [String]?, recent: Bool = false, after: Match? = nil,
        limit: Int, fields: [String]? = nil, broadPrefixMatches: Int = SearchRanking.broadPrefixMatches
    ) throws -> [Match] {
        guard let query = SearchQuery(text), limit > 0 else { return [] }
        let feedIDs = try feeds.map { keys in try keys.compactMap { try store.feed(key: $0)?.id } }
        let hits = try store.searchHits(
            matching: query.expression, order: recent ? .recency : .relevance,
            lastWordIsPrefix: query.terms.last?.isPrefix ?? false, broadPrefixMatches: broadPrefixMatches,
            feedIDs: feedIDs, after: after?.position, limit: limit)
        return hits.map { hit in
            Match(
                feedKey: hit.feedKey, item: hit.item,
                fields: fields ?? hit.searchFields.map(store.searchFieldList) ?? [], query: query,
                position: SearchHitKey(rank: hit.rank, doc: hit.doc, order: hit.order))
        }
    }
}
