import Testing

@testable import PagedStore

/// The rule that lists a broad word being typed newest first, on its own.
@Suite struct SearchRankingTests {
    @Test func aWordBeingTypedIsCountedOneMatchPastTheLimit() {
        #expect(SearchRanking.matchesToCount(asked: .relevance, lastWordIsPrefix: true, broadAt: 1_000) == 1_001)
        #expect(SearchRanking.matchesToCount(asked: .relevance, lastWordIsPrefix: true, broadAt: 0) == 1)
        #expect(SearchRanking.matchesToCount(asked: .relevance, lastWordIsPrefix: true, broadAt: -5) == 1)
        #expect(
            SearchRanking.matchesToCount(asked: .relevance, lastWordIsPrefix: true, broadAt: .max) == nil,
            "a limit nothing can pass needs no count")
    }

    @Test func aFinishedWordOrARecencySearchIsNotCounted() {
        #expect(SearchRanking.matchesToCount(asked: .relevance, lastWordIsPrefix: false, broadAt: 10) == nil)
        #expect(SearchRanking.matchesToCount(asked: .recency, lastWordIsPrefix: true, broadAt: 10) == nil)
    }

    @Test func moreMatchesThanTheLimitListNewestFirst() {
        #expect(SearchRanking.order(asked: .relevance, lastWordIsPrefix: true, matches: 11, broadAt: 10) == .recency)
        #expect(SearchRanking.order(asked: .relevance, lastWordIsPrefix: true, matches: 10, broadAt: 10) == .relevance)
        #expect(SearchRanking.order(asked: .relevance, lastWordIsPrefix: true, matches: 0, broadAt: 0) == .relevance)
        #expect(SearchRanking.order(asked: .relevance, lastWordIsPrefix: true, matches: 1, broadAt: 0) == .recency)
    }

    @Test func theOrderAskedForStandsOtherwise() {
        let order = SearchRanking.order(asked:lastWordIsPrefix:matches:broadAt:)
        #expect(order(.relevance, false, 500, 10) == .relevance)
        #expect(order(.recency, true, 0, 10) == .recency)
        #expect(order(.relevance, true, .max, .max) == .relevance)
    }
}
