/// When a search ranks what it finds and when it lists it newest first. Pure.
///
/// Ranking costs FTS5 a pass over every match (bm25 weighs each word by the number of documents
/// that hold it, and orders them all before the first row), so a word being typed that opens a
/// third of a million posts would cost every keystroke a quarter of a second, for an order that
/// says little among that many. Such a search lists its matches newest first, which FTS5 reads
/// from the index's end at once; it ranks again as soon as the query narrows (another letter, or a
/// space that finishes the word). A search that asked for recency keeps it. The matches are counted
/// in the whole index, as FTS5 ranks them: a search of some feeds lists newest first when the
/// others' matches make the word broad.
package enum SearchRanking {
    /// More matches than this, for a query whose last word is still being typed, are listed newest
    /// first: a thousand matches rank in about a millisecond.
    package static let broadPrefixMatches = 1_000

    /// How many of the newest matches a search reads to tell whether it is broad: one more than
    /// `broadAt`; nil when its order cannot change (it asked for recency, or its last word is
    /// finished).
    static func matchesToCount(asked: SearchHitOrder, lastWordIsPrefix: Bool, broadAt: Int) -> Int? {
        guard asked == .relevance, lastWordIsPrefix else { return nil }
        let (count, overflow) = max(broadAt, 0).addingReportingOverflow(1)
        return overflow ? nil : count
    }

    /// The order a search runs in, once it counted `matches` (at most
    /// ``matchesToCount(asked:lastWordIsPrefix:broadAt:)`` of them).
    static func order(asked: SearchHitOrder, lastWordIsPrefix: Bool, matches: Int, broadAt: Int) -> SearchHitOrder {
        guard matchesToCount(asked: asked, lastWordIsPrefix: lastWordIsPrefix, broadAt: broadAt) != nil else {
            return asked
        }
        return matches > broadAt ? .recency : .relevance
    }
}
