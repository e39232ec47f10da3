import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// Where a trim may cut, alone: whole pages from the bottom, only where the next page resumes
/// exactly, never the last page with rows.
@Suite(.limit(minutes: 3)) struct TrimRuleTests {
    /// A chain of next pages of `rows` rows each: page n was asked with page n-1's older cursor.
    func chain(_ rows: [Int], fetched: [Date]? = nil) -> [PageRecord] {
        rows.enumerated().map { index, count in
            PageRecord(
                pageNo: Int64(index), request: index == 0 ? .first : .older,
                requestCursor: index == 0 ? nil : "c\(index - 1)", olderCursor: "c\(index)", newerCursor: nil,
                fetchedAt: fetched?[index] ?? Date(timeIntervalSince1970: 0), rowCount: count)
        }
    }

    @Test func aTrimToRowsKeepsWholePagesWithinTheLimit() {
        #expect(TrimRule.pagesToKeep(chain([10, 10, 10]), maxRows: 25) == 2)
        #expect(TrimRule.pagesToKeep(chain([10, 10, 10]), maxRows: 30) == nil, "everything fits")
    }

    @Test func theTopPageWithRowsAlwaysStays() {
        #expect(TrimRule.pagesToKeep(chain([10, 10]), maxRows: 0) == 1)
        #expect(TrimRule.pagesToKeep(chain([0, 10, 10]), maxRows: 0) == 2, "an emptied top page keeps nothing")
    }

    @Test func theCutMovesDownToWhereTheNextPageResumesExactly() {
        var pages = chain([10, 10, 10, 10])
        // Page 1 was written by a refresh: its older cursor points below the overlap, and page 1 was
        // not asked with page 0's: a cut right after page 0 would resume from the wrong place.
        pages[1].requestCursor = "elsewhere"
        #expect(TrimRule.pagesToKeep(pages, maxRows: 15) == 2, "cut after page 1 instead")
        pages[2].requestCursor = "elsewhere"
        pages[3].requestCursor = "elsewhere"
        #expect(TrimRule.pagesToKeep(pages, maxRows: 15) == nil, "no exact cut at all: keep every page")
    }

    @Test func theEndingPageOfNoRowsStaysWithThePageAboveIt() {
        #expect(TrimRule.pagesToKeep(chain([10, 10, 0]), maxRows: 20) == nil)
        #expect(TrimRule.pagesToKeep(chain([10, 10, 0]), maxRows: 10) == 1)
    }

    @Test func aTrimByAgeCutsThePagesFetchedBeforeTheDate() {
        let old = Date(timeIntervalSince1970: 0)
        let new = Date(timeIntervalSince1970: 1_000)
        let pages = chain([10, 10, 10], fetched: [new, old, old])
        #expect(TrimRule.pagesToKeep(pages, fetchedBefore: Date(timeIntervalSince1970: 500)) == 1)
        #expect(TrimRule.pagesToKeep(pages, fetchedBefore: old) == nil)
    }

    @Test func aTrimKeepsThePagesHoldingTheRowsPendingEditsName() {
        let old = Date(timeIntervalSince1970: 0)
        let new = Date(timeIntervalSince1970: 1_000)
        let pages = chain([10, 10, 10, 10], fetched: [new, old, old, old])
        let cutoff = Date(timeIntervalSince1970: 500)
        let byAge = TrimRule.pagesToKeep(pages, fetchedBefore: cutoff)
        #expect(TrimRule.keeping(0, of: pages, after: byAge) == 1)
        #expect(TrimRule.keeping(21, of: pages, after: byAge) == 3, "row 20 is on page 2")
        #expect(TrimRule.keeping(40, of: pages, after: byAge) == nil, "the last row: keep all")
        #expect(TrimRule.keeping(40, of: pages, after: nil) == nil, "a rule that cuts nothing cuts nothing")
        #expect(TrimRule.pagesToKeep(pages, maxRows: 10, keepingRows: 12) == 2)
        #expect(TrimRule.pagesToKeep(pages, maxRows: 30, keepingRows: 5) == 3, "the limit keeps more than the edit")
    }
}
