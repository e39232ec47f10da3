import Foundation

/// One search of the cache, from what a person typed to the matches with their text and highlights:
/// the one path of ``FeedStore/search(_:as:in:order:limit:codec:)`` and `pagedb search`.
package enum CachedSearch {
    /// One match: the row that shows it and its searchable text.
    package struct Match: Sendable {
        /// The feed whose row shows it.
        package var feedKey: String
        /// The row.
        package var item: StoredItem
        /// Its row index in that feed.
        package var row: Int
        /// Its searchable text as a person reads it (fields one a line, markup removed).
        package var text: String
        /// Where the query's words are in ``text``.
        package var ranges: [Range<String.Index>]

        /// The item's id.
        package var id: String { item.itemID }

        /// ``text`` with the matched words in brackets, for a terminal.
        package var marked: String {
            var result = ""
            var index = text.startIndex
            for range in ranges {
                result += text[index..<range.lowerBound] + "[" + text[range] + "]"
                index = range.upperBound
            }
            return result + text[index...]
        }
    }

    /// The matches of `text` in `store`, best first (or most recently cached with `recent`).
    /// - Parameters:
    ///   - feeds: The keys of the feeds to search; nil for every feed.
    ///   - fields: The fields to read the text from; nil for those the match's feed records.
    package static func find(
        _ text: String, in store: PageStore, feeds: [String]?, recent: Bool = false, limit: Int,
        fields: [String]? = nil
    ) throws -> [Match] {
        guard let query = SearchQuery(text), limit > 0 else { return [] }
        let feedIDs = try feeds.map { keys in try keys.compactMap { try store.feed(key: $0)?.id } }
        let hits = try store.searchHits(
            matching: query.expression, order: recent ? .recency : .relevance, feedIDs: feedIDs, limit: limit)
        return try hits.map { hit in
            let read = fields ?? hit.searchFields.map(store.searchFieldList) ?? []
            let shown = SearchText(payload: hit.item.payload, fields: read)?.display ?? ""
            let row = try store.feed(key: hit.feedKey).map { try store.rowIndex(ofPosition: hit.item.position, in: $0) }
            return Match(
                feedKey: hit.feedKey, item: hit.item, row: row ?? 0, text: shown,
                ranges: SearchHighlight.ranges(in: shown, of: query))
        }
    }
}
