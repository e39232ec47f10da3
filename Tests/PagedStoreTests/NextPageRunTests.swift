import TestSupport
import Testing

@testable import PagedStore

/// The rules of a run of next pages, alone: which answers are loops, and when a page of only known
/// items moves the run on.
@Suite(.limit(minutes: 3)) struct NextPageRunTests {
    let bottom = NextPageBottom(cursor: "page=2", rowID: "p9")

    @Test func anAnswerPointingBackToItsOwnCursorIsALoop() {
        let run = NextPageRun(from: bottom, limit: 3)
        #expect(run.refusal(ofAnswerPointingTo: "page=2")?.kind == .paginationLoop)
        #expect(run.refusal(ofAnswerPointingTo: "page=3") == nil)
        #expect(run.refusal(ofAnswerPointingTo: nil) == nil, "the end of the list")
    }

    @Test func onlyAPageThatChangedNoRowMovesTheRunOn() {
        #expect(NextPageRun.advancedCursor(of: RowChange(), olderCursor: "page=3") == "page=3")
        #expect(NextPageRun.advancedCursor(of: RowChange(inserted: [10]), olderCursor: "page=3") == nil)
        #expect(NextPageRun.advancedCursor(of: RowChange(deleted: [4]), olderCursor: "page=3") == nil)
        #expect(NextPageRun.advancedCursor(of: RowChange(), olderCursor: nil) == nil, "the page ended the feed")
    }

    @Test func followingACursorKeepsTheBottomRowAndTakesTheNewCursor() {
        var run = NextPageRun(from: bottom, limit: 3)
        #expect(run.follow("page=3") == nil)
        #expect(run.bottom == NextPageBottom(cursor: "page=3", rowID: "p9"))
    }

    @Test func aCursorGivenBeforeStopsTheRun() {
        var run = NextPageRun(from: bottom, limit: 10)
        #expect(run.follow("page=3") == nil)
        #expect(run.follow("page=2")?.kind == .paginationLoop, "the cursor the run started from")
    }

    @Test func tooManyPagesOfNothingNewInARowStopTheRun() {
        var run = NextPageRun(from: bottom, limit: 3)
        #expect(run.follow("a") == nil)
        #expect(run.follow("b") == nil)
        #expect(run.follow("c")?.kind == .paginationLoop)
        #expect(run.bottom.cursor == "b", "the run stops without following it")
    }
}
