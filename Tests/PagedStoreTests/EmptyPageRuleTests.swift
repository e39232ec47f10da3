import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// ``EmptyPageRule``: a page left with no rows goes, and its cursors pass to a neighbour so that the
/// pages still chain by cursor; the feed's only page stays.
@Suite(.limit(minutes: 3)) struct EmptyPageRuleTests {
    /// A page asked with `requestCursor` that came with `olderCursor`.
    func page(
        _ pageNo: Int64, _ request: PageRequestKind = .older, asked requestCursor: String?, older olderCursor: String?,
        rows: Int = 0
    ) -> PageRecord {
        PageRecord(
            pageNo: pageNo, request: request, requestCursor: requestCursor, olderCursor: olderCursor,
            newerCursor: "new\(pageNo)", fetchedAt: Date(timeIntervalSince1970: 0), rowCount: rows)
    }

    @Test func aPageWithAPageAboveGivesItItsOlderCursor() {
        let above = page(0, .first, asked: nil, older: "c1", rows: 10)
        let emptied = page(1, asked: "c1", older: "c2")
        let below = page(2, asked: "c2", older: "c3", rows: 10)
        #expect(
            EmptyPageRule.plan(for: emptied, above: above, below: below) == .giveOlderCursor(toPage: 0, cursor: "c2"))
        #expect(EmptyPageRule.plan(for: emptied, above: above, below: nil) == .giveOlderCursor(toPage: 0, cursor: "c2"))
    }

    @Test func aTopPageGivesThePageBelowItsStart() {
        let emptied = page(0, .first, asked: nil, older: "c1")
        let below = page(1, asked: "c1", older: "c2", rows: 10)
        #expect(
            EmptyPageRule.plan(for: emptied, above: nil, below: below)
                == .giveStart(toPage: 1, request: .first, requestCursor: nil, newerCursor: "new0"))
    }

    @Test func aLocalTopPageGivesThePageBelowTheStartOfAPageAskedWithNothing() {
        let emptied = page(0, .local, asked: nil, older: nil)
        let below = page(1, asked: nil, older: "c2", rows: 10)
        #expect(
            EmptyPageRule.plan(for: emptied, above: nil, below: below)
                == .giveStart(toPage: 1, request: .first, requestCursor: nil, newerCursor: "new0"))
    }

    @Test func theFeedsOnlyPageStays() {
        #expect(EmptyPageRule.plan(for: page(0, .first, asked: nil, older: "c1"), above: nil, below: nil) == .keep)
    }

    @Test func onlyThePageThatEndedTheFeedOrItsOnlyPageMayStayEmpty() {
        let ending = page(3, asked: "c3", older: nil)
        #expect(EmptyPageRule.mayStayEmpty(ending, isBottom: true, pageCount: 4))
        #expect(!EmptyPageRule.mayStayEmpty(ending, isBottom: false, pageCount: 4), "no page below an end")
        let goingOn = page(3, asked: "c3", older: "c4")
        #expect(!EmptyPageRule.mayStayEmpty(goingOn, isBottom: true, pageCount: 4))
        #expect(!EmptyPageRule.mayStayEmpty(page(1, asked: "c1", older: "c2"), isBottom: false, pageCount: 4))
        #expect(EmptyPageRule.mayStayEmpty(goingOn, isBottom: true, pageCount: 1))
    }
}
