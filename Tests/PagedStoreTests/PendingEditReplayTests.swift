import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The rules of pending edits after a write, alone: what each edit needs, whether a removed item
/// that came back takes its new place, and where an item goes back.
@Suite(.limit(minutes: 3)) struct PendingEditReplayTests {
    func edit(_ kind: PendingEditRecord.Kind, shown: String? = "edited") -> PendingEditRecord {
        PendingEditRecord(
            itemID: "a", kind: kind, base: Data("base".utf8), baseSection: nil, edited: shown.map { Data($0.utf8) },
            above: nil, below: nil, createdAt: Date(timeIntervalSince1970: 0))
    }

    func row(_ payload: String) -> StoredItem {
        StoredItem(itemID: "a", position: 100, section: nil, payload: Data(payload.utf8))
    }

    @Test func anUpdateIsAppliedAgainOnlyOnANewServerValue() {
        #expect(PendingEditReplay.step(for: edit(.update), stored: row("server")) == .reapply)
        #expect(PendingEditReplay.step(for: edit(.update), stored: row("edited")) == .keep)
        #expect(PendingEditReplay.step(for: edit(.update), stored: nil) == .keep, "the row is gone: nothing to edit")
    }

    @Test func aRemovedItemGoesAgainAndAnInsertedOneGoesBack() {
        #expect(PendingEditReplay.step(for: edit(.remove, shown: nil), stored: row("server")) == .removeAgain)
        #expect(PendingEditReplay.step(for: edit(.remove, shown: nil), stored: nil) == .keep)
        #expect(PendingEditReplay.step(for: edit(.insert), stored: nil) == .putBack)
        #expect(PendingEditReplay.step(for: edit(.insert), stored: row("edited")) == .keep)
    }

    @Test func anItemThatCameBackBetweenItsOldNeighboursTakesItsNewPlace() {
        func takesNewPlace(_ position: Int64, _ above: Int64?, _ below: Int64?, disproved: Bool = false) -> Bool {
            PendingEditReplay.takesNewPlace(
                cameBackAt: position, removedBetween: above, and: below, placeDisproved: disproved)
        }
        #expect(takesNewPlace(150, 100, 300))
        #expect(takesNewPlace(150, nil, 300))
        #expect(takesNewPlace(150, nil, nil), "the only place known")
        #expect(!takesNewPlace(400, 100, 300), "appended below the row it was above: its place is still between them")
        #expect(!takesNewPlace(50, 100, nil))
        #expect(takesNewPlace(400, 300, 100), "the row below moved above the other: only the row above tells")
        #expect(!takesNewPlace(200, 300, 100))
    }

    @Test func anItemWhosePlaceAPageDisprovedTakesItsNewPlaceWherever() {
        for (position, above, below) in [(400, 100, 300), (50, 100, 300), (50, 100, nil)] as [(Int64, Int64, Int64?)] {
            #expect(
                PendingEditReplay.takesNewPlace(
                    cameBackAt: position, removedBetween: above, and: below, placeDisproved: true),
                "a page listed \(above) and \(String(describing: below)) without it: it moved")
        }
    }

    @Test func aPageListingBothRowsAndTheItemElsewhereDisprovesItsPlace() {
        let disproved = { (listed: [String]) in
            PendingEditReplay.placeDisproved(byFirstPage: listed, item: "x", above: "a", below: "b")
        }
        #expect(disproved(["a", "b", "c", "x", "d"]), "it moved below both")
        #expect(disproved(["x", "a", "b"]), "it moved above both")
        #expect(!disproved(["a", "c", "x", "b"]), "between them, with rows the feed lacked: its place holds")
        #expect(!disproved(["x", "b", "c"]), "one row listed: a page-numbered list shifted, nothing proved")
        #expect(!disproved(["a", "b"]), "not listed: the page did not bring it back")
        #expect(!PendingEditReplay.placeDisproved(byFirstPage: ["a", "x", "b"], item: "x", above: nil, below: "b"))
    }

    @Test func anItemRemovedFromTheTopThatTheFirstPageListsBelowItsLowerRowMoved() {
        let disproved = { (listed: [String]) in
            PendingEditReplay.placeDisproved(byFirstPage: listed, item: "x", above: nil, below: "b")
        }
        #expect(disproved(["b", "n", "x"]), "the page starts at the head: x was above b there, and is below it")
        #expect(!disproved(["n", "x", "b"]), "new posts on top: x is still right above b")
        #expect(!disproved(["n", "x"]), "b not listed: nothing proved")
    }

    @Test func aRewrittenRowLeavesTheItemsRightAboveItThatTheFirstPageLeftOut() {
        let places: [String: (above: String?, below: String?)] = [
            "x": (nil, "b"), "y": ("b", "c"), "z": ("c", "d"),
        ]
        let leaving = { (rewritten: [String], listed: Set<String>) in
            PendingEditReplay.rowsLeavingTheirPlaces(rewritten: rewritten, listed: listed, removedPlaces: places)
        }
        #expect(leaving(["b"], ["b", "n1", "n2"]) == ["b"], "b bumped to the top, x not listed above it")
        #expect(leaving(["b", "c"], ["b", "n1", "c"]) == ["b", "c"])
        #expect(
            leaving(["b", "c"], ["b", "y", "c"]) == ["b"], "y listed: its removal goes again with the page's place")
        #expect(leaving(["b"], ["n1", "n2"]).isEmpty, "not listed: the page does not rewrite it")
        #expect(leaving(["a"], ["a", "n1"]).isEmpty, "no removal names a")
    }

    @Test func aServerRowGoesBackRightAboveTheRowBelowItAndALocalOneRightBelowTheRowAboveIt() {
        // Rows 3 and 7: four rows came in between meanwhile.
        #expect(PendingEditReplay.rowBetween(aboveRow: 3, belowRow: 7, serverRow: true, named: (true, true)) == 7)
        #expect(PendingEditReplay.rowBetween(aboveRow: 3, belowRow: 7, serverRow: false, named: (true, true)) == 4)
    }

    @Test func rowsStandingTheOtherWayRoundPutAnItemRightBelowTheRowAboveIt() {
        // The row below it moved to row 0 (bumped to the top), above the row above it, at row 7.
        #expect(PendingEditReplay.rowBetween(aboveRow: 7, belowRow: 0, serverRow: true, named: (true, true)) == 8)
        #expect(PendingEditReplay.rowBetween(aboveRow: 7, belowRow: 0, serverRow: false, named: (true, true)) == 8)
    }

    @Test func withOneNeighbourLeftAnItemGoesNextToItAndWithNoneItWaitsForThePages() {
        #expect(PendingEditReplay.rowBetween(aboveRow: 3, belowRow: nil, serverRow: true, named: (true, true)) == 4)
        #expect(PendingEditReplay.rowBetween(aboveRow: nil, belowRow: 7, serverRow: false, named: (true, true)) == 7)
        #expect(PendingEditReplay.rowBetween(aboveRow: nil, belowRow: nil, serverRow: true, named: (true, true)) == nil)
        #expect(
            PendingEditReplay.rowBetween(aboveRow: nil, belowRow: nil, serverRow: true, named: (false, false)) == 0,
            "the feed's only row goes back as its only row")
    }

    @Test func aRolledBackRemovalGoesBackAtItsPositionWhenTheRowBelowItIsTheOneItNamed() {
        func goesBack(_ removed: Int64?, _ around: (Int64?, Int64?), first: Int64?) -> Bool {
            PendingEditReplay.goesBackAtItsPosition(
                removed, above: around.0, below: around.1, firstRowFromRemoved: first)
        }
        #expect(goesBack(150, (100, 200), first: 200), "its old slot, whichever side of a gap it is on")
        #expect(goesBack(50, (nil, 100), first: 100), "on top")
        #expect(goesBack(250, (200, nil), first: nil), "at the bottom")
        #expect(!goesBack(150, (100, 200), first: 170), "above a row that came in between: the kind of row decides")
        #expect(!goesBack(250, (100, 200), first: nil), "no longer between them (the rows moved)")
        #expect(!goesBack(200, (100, 200), first: 200), "the row below holds it")
        #expect(!goesBack(150, (nil, nil), first: 150), "a row holds it")
        #expect(!goesBack(90, (100, 200), first: 100), "above the row above it")
        #expect(!goesBack(nil, (100, 200), first: nil), "not known: a file from before it was kept")
    }

    @Test func aNamedRowThatIsGoneStandsForTheRowItsOwnRemovalNamedOnTheSameSide() {
        // b and c are removed and pending: b named a above and c below, c named b above and d below.
        let places: [String: (above: String?, below: String?)] = ["b": ("a", "c"), "c": ("b", "d")]
        let rows: Set<String> = ["a", "d"]
        #expect(PendingEditReplay.standIn(for: "c", on: .above, rows: rows, removedPlaces: places) == "a")
        #expect(PendingEditReplay.standIn(for: "b", on: .below, rows: rows, removedPlaces: places) == "d")
        #expect(PendingEditReplay.standIn(for: "a", on: .below, rows: rows, removedPlaces: places) == "a")
        #expect(
            PendingEditReplay.standIn(for: "x", on: .above, rows: rows, removedPlaces: places) == nil,
            "gone with no removal pending: the list was replaced")
        #expect(PendingEditReplay.standIn(for: nil, on: .above, rows: rows, removedPlaces: places) == nil)
    }

    @Test func aChainOfRemovalsEndingAtOneThatNamedNoRowStandsForTheListsEnd() {
        // Every row removed: a (top), b and c (bottom), each naming the next.
        let places: [String: (above: String?, below: String?)] = ["a": (nil, "b"), "b": (nil, "c"), "c": (nil, nil)]
        #expect(PendingEditReplay.standsForTheEnd("b", on: .below, rows: [], removedPlaces: places))
        #expect(PendingEditReplay.standsForTheEnd(nil, on: .above, rows: [], removedPlaces: places), "named none")
        #expect(!PendingEditReplay.standsForTheEnd("b", on: .below, rows: ["c"], removedPlaces: places), "c is a row")
        #expect(
            !PendingEditReplay.standsForTheEnd("x", on: .below, rows: [], removedPlaces: places),
            "gone with no removal pending: the list was replaced")
        let cycle: [String: (above: String?, below: String?)] = ["b": (nil, "c"), "c": (nil, "b")]
        #expect(!PendingEditReplay.standsForTheEnd("b", on: .below, rows: [], removedPlaces: cycle))
    }

    @Test func aChainOfRemovalsThatNameEachOtherEndsWithoutAStandIn() {
        let places: [String: (above: String?, below: String?)] = ["b": ("c", nil), "c": ("b", nil), "s": ("s", "s")]
        #expect(PendingEditReplay.standIn(for: "b", on: .above, rows: [], removedPlaces: places) == nil)
        #expect(PendingEditReplay.standIn(for: "s", on: .below, rows: [], removedPlaces: places) == nil)
    }

    @Test func removalsOverAGapNamingRowsUnderItsFillNameTheFillsFirstRow() {
        func removal(_ item: String, below: String?, under: Bool = false) -> PendingEditReplay.RemovalOverAGap {
            PendingEditReplay.RemovalOverAGap(itemID: item, below: below, belowStandsUnderTheFill: under)
        }
        // A fill wrote n10 and n11 under the gap; f1 is the far side's first row, under them.
        let page = ["n10", "n11", "f1"]
        let handed = PendingEditReplay.handedOnOverAGap(
            [
                removal("a", below: "f1", under: true), removal("b", below: nil), removal("c", below: "n11"),
                removal("d", below: "x"), removal("n11", below: "f1", under: true),
            ], to: "n10", listing: page)
        #expect(
            handed == ["a", "b", "c"], "under the fill, the list's end, listed after n10; not x, not a listed item")
        #expect(
            PendingEditReplay.handedOnOverAGap([removal("e", below: "n10")], to: "n10", listing: page).isEmpty,
            "the fill's first row itself already stands right below it")
        #expect(PendingEditReplay.handedOnOverAGap([], to: "n10", listing: page).isEmpty)
    }
}
