import TestSupport
import Testing

@testable import PagedStore

/// The rule for a gap's page, alone: which items go in, whether the page closes the gap, and what
/// the gap becomes.
@Suite(.limit(minutes: 3)) struct GapFillRuleTests {
    /// A gap at position 100: rows a (50) and b (100) above it, c (200), d (300) and e (400) below;
    /// the far side's edge is c unless `farSideEdge` says otherwise (local rows above it).
    func plan(
        _ ids: [String], from end: GapEnd = .top, cursor: String? = "next", rowsOnFarSide: Bool = true,
        farSideEdge: Int64 = 200
    ) -> GapFillRule.Plan {
        GapFillRule.plan(
            GapFillRule.Facts(
                end: end, itemIDs: ids, known: ["a": 50, "b": 100, "c": 200, "d": 300, "e": 400], gapPosition: 100,
                cursor: cursor, rowsOnFarSide: rowsOnFarSide, farSideEdge: end == .top ? farSideEdge : nil))
    }

    @Test func aPageFromTheTopGoesInUpToTheFirstRowOfTheFarSideAndCloses() {
        let fill = plan(["n1", "n2", "c", "n3"])
        #expect(fill.fresh == [0, 1])
        #expect(fill.proof == [2])
        #expect(fill.gap == .closed)
    }

    @Test func aPageThatEndsItsFarSideOnARowBelowTheEdgeMovesThatRowAndKeepsTheGap() {
        let fill = plan(["n1", "n2", "d"])
        #expect(fill.fresh == [0, 1, 2])
        #expect(fill.moved == [2], "d was bumped, or c deleted: the next page tells")
        #expect(fill.proof.isEmpty, "c is not shown deleted")
        #expect(fill.gap == .belowTheNewRows(cursor: "next", unfillable: false))
        let followedByAnItem = plan(["n1", "d", "n2"])
        #expect(followedByAnItem.moved == [1])
        #expect(followedByAnItem.gap == .belowTheNewRows(cursor: "next", unfillable: false))
        #expect(plan(["n1", "d"], cursor: nil).gap == .closed, "the server gave all it has")
    }

    @Test func twoRowsOfTheFarSideInTheCachedOrderReachItPastRowsTheyDoNotList() {
        let fill = plan(["n1", "d", "e"])
        #expect(fill.fresh == [0])
        #expect(fill.proof == [1, 2], "c, between the gap and d, is not listed")
        #expect(fill.gap == .closed)
    }

    @Test func localRowsAboveTheFarSidesEdgeDoNotCountAsPassed() {
        let fill = plan(["n1", "d"], farSideEdge: 300)
        #expect(fill.fresh == [0])
        #expect(fill.gap == .closed, "c is a local row: d is the first row a server listed")
    }

    @Test func aPageThatReachesNothingMovesTheGapBelowItsRowsWithItsCursor() {
        let fill = plan(["n1", "n2"])
        #expect(fill.fresh == [0, 1])
        #expect(fill.gap == .belowTheNewRows(cursor: "next", unfillable: false))
    }

    @Test func aPageFromTheBottomGoesInAboveTheRowsItReachedAndKeepsTheGapAbove() {
        let fill = plan(["b", "n1", "n2"], from: .bottom)
        #expect(fill.fresh == [1, 2])
        #expect(fill.gap == .closed, "it reached b, above the gap")
        let open = plan(["n1", "n2"], from: .bottom, cursor: "newer")
        #expect(open.gap == .aboveTheNewRows(newerCursor: "newer", unfillable: false))
    }

    @Test func rowsOfTheNearSideAreDroppedButTheOnesListedFirstProve() {
        let fill = plan(["b", "n1", "a"])
        #expect(fill.fresh == [1], "b and a are known above the gap: dropped")
        #expect(fill.proof == [0], "b, listed first, says what the page goes on from")
    }

    @Test func anEmptyPageWithNothingFurtherLeavesTheGapUnfillableWhileRowsRemainBeyond() {
        #expect(plan([], cursor: nil).gap == .belowTheNewRows(cursor: nil, unfillable: true))
        #expect(
            plan([], cursor: nil, rowsOnFarSide: false).gap == .becameTheBottom(cursor: nil),
            "nothing below: the gap is the feed's end")
    }

    @Test func aGapWithNoRowsBelowItBecomesTheBottomThatNextPagesContinue() {
        #expect(plan(["n1", "n2"], rowsOnFarSide: false).gap == .becameTheBottom(cursor: "next"))
        #expect(plan(["n1", "n2"], from: .bottom, rowsOnFarSide: false).gap == .closed, "nothing above: the top")
    }

    @Test func aPageWithItemsThatEndsTheListCloses() {
        #expect(plan(["n1"], cursor: nil).gap == .closed)
    }
}
