import TestSupport
import Testing

@testable import PagedStore

/// The rule for a gap's page, alone: which items go in, whether the page closes the gap, and what
/// the gap becomes.
@Suite(.limit(minutes: 3)) struct GapFillRuleTests {
    /// A gap at position 100: rows a (50) and b (100) above it, c (200) down to g (600) below, all
    /// server rows unless `local` says otherwise.
    func plan(
        _ ids: [String], from end: GapEnd = .top, cursor: String? = "next", rowsOnFarSide: Bool = true,
        local: Set<String> = [], order: FeedPolicy.ItemOrder = .fixed, hidden: Set<String> = [],
        endsTheList: Bool = false
    ) -> GapFillRule.Plan {
        let below = ["c", "d", "e", "f", "g"].enumerated().map { offset, id in
            DeletionProof.Row(itemID: id, position: Int64(offset + 2) * 100, local: local.contains(id))
        }
        let known = Dictionary(uniqueKeysWithValues: below.map { ($0.itemID, $0.position) })
        return GapFillRule.plan(
            GapFillRule.Facts(
                end: end, itemIDs: ids, known: known.merging(["a": 50, "b": 100]) { $1 }, gapPosition: 100,
                cursor: cursor, rowsOnFarSide: rowsOnFarSide, farSideRows: end == .top ? below : [], order: order,
                hidden: hidden, farSideBottom: 600, farSideEndsTheList: endsTheList))
    }

    @Test func aPageFromTheTopGoesInUpToTheFirstRowOfTheFarSideAndCloses() {
        let fill = plan(["n1", "n2", "c", "d"])
        #expect(fill.fresh == [0, 1])
        #expect(fill.proof == [2, 3])
        #expect(fill.gap == .closed)
    }

    @Test func itemsListedUnderARowOfTheFarSideMoveItUpToThem() {
        let open = plan(["n1", "n2", "c", "n3"])
        #expect(open.fresh == [0, 1, 2, 3], "n3 lies under c, where the feed has d: c was bumped from under n3")
        #expect(open.moved == [2])
        #expect(open.proof.isEmpty)
        #expect(open.gap == .belowTheNewRows(cursor: "next", unfillable: false))
        let closed = plan(["n1", "c", "n3", "d", "e"])
        #expect(closed.fresh == [0, 1, 2], "c moves up over n3, and the page reaches d")
        #expect(closed.moved == [1])
        #expect(closed.gap == .closed)
        let run = plan(["c", "d", "n1", "n2"])
        #expect(run.fresh.isEmpty, "c and d in their cached order hold their place: e…g deleted, or further down")
        #expect(run.gap == .closed)
        let between = plan(["c", "d", "n1", "e"])
        #expect(between.moved == [0, 1], "n1 between d and e: c and d moved up over it")
        #expect(between.fresh == [0, 1, 2])
        #expect(between.gap == .closed)
        let past = plan(["f", "g", "n1", "n2"])
        #expect(past.fresh.isEmpty, "n1 and n2 are under g, the far side's last row: the list goes on there")
        #expect(past.gap == .closed)
        let hidden = plan(["n1", "n2", "c", "x", "d"], hidden: ["x"])
        #expect(hidden.fresh == [0, 1], "x is hidden by its pending removal, not an item the feed lacks")
        #expect(hidden.gap == .closed)
    }

    @Test func aPageEndingOnARowBelowMoreRowsThanItCouldProveDeletedMovesItAndKeepsTheGap() {
        let fill = plan(["n1", "g"])
        #expect(fill.fresh == [0, 1])
        #expect(fill.moved == [1], "four rows above g, more than a page of two proves: g was bumped")
        #expect(fill.proof.isEmpty, "c…f are not shown deleted")
        #expect(fill.gap == .belowTheNewRows(cursor: "next", unfillable: false))
        #expect(plan(["n1", "g"], cursor: nil).gap == .closed, "the server gave all it has")
    }

    @Test func inAListOrderedByActivityAPageEndingOnTheFarSidesTopMovesItAndKeepsTheGap() {
        let fill = plan(["n1", "n2", "c"], order: .byActivity)
        #expect(fill.moved == [2], "c may have moved up from above items the feed never had")
        #expect(fill.fresh == [0, 1, 2])
        #expect(fill.proof.isEmpty)
        #expect(fill.gap == .belowTheNewRows(cursor: "next", unfillable: false))
        #expect(plan(["n1", "n2", "c"]).gap == .closed, "ordered by creation, c is where it was")
        #expect(plan(["n1", "n2", "c"], cursor: nil, order: .byActivity).gap == .closed, "nothing under c")
        #expect(plan(["n1", "c", "d"], order: .byActivity).gap == .closed, "two rows in their order: reached")
    }

    @Test func inAListOrderedByActivityOnlyTheWholeFarSideHoldsItsPlaceOverItemsListedUnderIt() {
        let passed = plan(["c", "e", "n1", "n2"], order: .byActivity)
        #expect(passed.moved == [0, 1], "d deleted, or e then c bumped from above n1: only a later fill would say")
        #expect(passed.fresh == [0, 1, 2, 3])
        #expect(passed.proof.isEmpty, "d is not shown deleted")
        #expect(passed.gap == .belowTheNewRows(cursor: "next", unfillable: false))
        #expect(plan(["c", "e", "n1", "n2"]).proof == [0, 1], "ordered by creation, e holds its place: d deleted")
        let above = plan(["c", "d", "n1", "n2"], order: .byActivity)
        #expect(above.moved == [0, 1], "e…g cached under d: d was bumped, or they were deleted")
        #expect(above.gap == .belowTheNewRows(cursor: "next", unfillable: false))
        let whole = plan(["c", "d", "e", "f", "g", "n1"], order: .byActivity)
        #expect(whole.fresh.isEmpty, "the whole far side in its order: n1 is the list going on under it")
        #expect(whole.proof == [0, 1, 2, 3, 4])
        #expect(whole.gap == .closed)
        let local = plan(["c", "d", "f", "g", "n1"], local: ["e"], order: .byActivity)
        #expect(local.fresh.isEmpty, "e is the app's own row, not one the page passed")
        #expect(local.gap == .closed)
        let atTheEnd = plan(["c", "d", "e", "f", "g", "n1"], order: .byActivity, endsTheList: true)
        #expect(atTheEnd.moved == [0, 1, 2, 3, 4], "nothing lies under g, the list's last row: they were bumped")
        #expect(atTheEnd.fresh == [0, 1, 2, 3, 4, 5])
        #expect(plan(["c", "d", "e", "f", "g", "n1"], endsTheList: true).fresh.isEmpty, "ordered by creation")
    }

    @Test func aPageThatListsTheRowUnderTheOneItReachesProvesTheRowsAboveDeleted() {
        let fill = plan(["n1", "n2", "e", "f"])
        #expect(fill.fresh == [0, 1])
        #expect(fill.proof == [2, 3], "c and d, above e: deleted")
        #expect(fill.gap == .closed)
    }

    @Test func aPageEndingOnARowItSkipsRowsToWithServerRowsUnderItMovesItAndKeepsTheGap() {
        let fill = plan(["n1", "n2", "e"])
        #expect(fill.moved == [2], "c and d deleted, or e bumped from below them: only the next item would say")
        #expect(fill.fresh == [0, 1, 2])
        #expect(fill.proof.isEmpty, "c and d are not shown deleted")
        #expect(fill.gap == .belowTheNewRows(cursor: "next", unfillable: false))
        #expect(plan(["n1", "n2", "e"], cursor: nil).gap == .closed, "the server gave all it has")
    }

    @Test func aPageEndingOnARowWithFewerRowsUnderItThanItPassedReachesIt() {
        let fill = plan(["n1", "n2", "n3", "g"])
        #expect(fill.fresh == [0, 1, 2])
        #expect(fill.proof == [3], "c…f, above g, the bottom row: deleted (no row below g to say more)")
        #expect(fill.gap == .closed)
        let overTwo = plan(["n1", "n2", "n3", "f"])
        #expect(overTwo.proof == [3], "c…e, above f, with only g under it: a next fill might not prove them")
        #expect(overTwo.gap == .closed)
    }

    @Test func twoRowsOfTheFarSideInTheCachedOrderReachItPastMoreRows() {
        let fill = plan(["n1", "f", "g"])
        #expect(fill.fresh == [0])
        #expect(fill.gap == .closed, "listed in the cached order: the page reached them (c…e are too many to prove)")
    }

    @Test func localRowsAboveTheRowAPageEndsOnAreNotCountedAsPassed() {
        let fill = plan(["n1", "g"], local: ["c", "d", "e"])
        #expect(fill.gap == .closed, "only f is a server row above g")
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
