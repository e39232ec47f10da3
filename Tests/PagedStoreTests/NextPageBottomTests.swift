import TestSupport
import Testing

@testable import PagedStore

/// Whether a next page still continues the feed's bottom: the rule alone, on feed records.
@Suite(.limit(minutes: 3)) struct NextPageBottomTests {
    static func feed(cursor: String?, bottom: Int64? = 90) -> FeedRecord {
        FeedRecord(
            id: 1, key: "home", newestCursor: nil, oldestCursor: cursor, endReached: cursor == nil, rowCount: 10,
            topPosition: 0, bottomPosition: bottom, lastRefreshAt: nil, lastError: nil, generation: 1, loaded: true,
            hasSections: false, policy: nil)
    }

    @Test func theSameCursorBelowTheSameRowIsContinued() {
        let bottom = NextPageBottom(cursor: "2", rowID: "p9")
        #expect(bottom.isContinued(byBottomOf: Self.feed(cursor: "2"), bottomRowID: "p9"))
    }

    @Test func theSameCursorBelowAnotherRowIsAReplacedList() {
        // A page-numbered server gives every list "2" as its second page.
        let bottom = NextPageBottom(cursor: "2", rowID: "p9")
        #expect(!bottom.isContinued(byBottomOf: Self.feed(cursor: "2"), bottomRowID: "n9"))
    }

    @Test func anotherCursorBelowTheSameRowIsABottomThatMovedOn() {
        let bottom = NextPageBottom(cursor: "2", rowID: "p9")
        #expect(!bottom.isContinued(byBottomOf: Self.feed(cursor: "3"), bottomRowID: "p9"))
        #expect(!bottom.isContinued(byBottomOf: Self.feed(cursor: nil), bottomRowID: "p9"))
    }

    @Test func aFeedWithoutRowsIsContinuedByItsCursorAlone() {
        let bottom = NextPageBottom(cursor: "c1", rowID: nil)
        #expect(bottom.isContinued(byBottomOf: Self.feed(cursor: "c1", bottom: nil), bottomRowID: nil))
        #expect(!bottom.isContinued(byBottomOf: Self.feed(cursor: "c1"), bottomRowID: "p0"))
    }

    @Test func aCursorThatMovedOnOverKnownItemsKeepsTheRow() {
        let bottom = NextPageBottom(cursor: "2", rowID: "p9").advanced(to: "3")
        #expect(bottom == NextPageBottom(cursor: "3", rowID: "p9"))
    }
}
