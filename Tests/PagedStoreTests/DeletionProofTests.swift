import TestSupport
import Testing

@testable import PagedStore

/// The rule for the rows a page proves deleted, alone: which stretch a page covers, where other gaps
/// cut it, and what it proves there.
@Suite(.limit(minutes: 3)) struct DeletionProofTests {
    func rows(_ ids: [String], from position: Int64 = 10, local: Set<String> = []) -> [DeletionProof.Row] {
        ids.enumerated().map { offset, id in
            DeletionProof.Row(itemID: id, position: position + Int64(offset) * 10, local: local.contains(id))
        }
    }

    // MARK: - The stretch a page covers

    @Test func aFillFromTheTopCoversTheEdgeDownToItsLastKnownRow() {
        let stretch = DeletionProof.stretch(
            known: [(offset: 3, position: 50), (offset: 4, position: 60)], itemCount: 5, attachedAt: .upper, edge: 20)
        #expect(stretch.map { [$0.after, $0.through] } == [20, 60])
    }

    @Test func aFillFromTheTopThatListsRowsAboveItsGapFirstCoversFromThem() {
        let stretch = DeletionProof.stretch(
            known: [(offset: 0, position: 10)], itemCount: 3, attachedAt: .upper, edge: 20)
        #expect(stretch.map { [$0.after, $0.through] } == [10, 20])
    }

    @Test func aFillFromTheTopThatEndsOnRowsAboveItsGapSaysNothingBelowThem() {
        let stretch = DeletionProof.stretch(
            known: [(offset: 1, position: 10)], itemCount: 2, attachedAt: .upper, edge: 20)
        #expect(stretch == nil, "the page ends on the row it repeats: what follows it is the next page's")
    }

    @Test func aPageEndingOnKnownRowsSaysNothingBelowThem() {
        let endsThere = DeletionProof.stretch(
            known: [(offset: 0, position: 10), (offset: 2, position: 30)], itemCount: 3, attachedAt: .lower, edge: 90)
        #expect(endsThere.map { [$0.after, $0.through] } == [10, 30])
        let goesOn = DeletionProof.stretch(
            known: [(offset: 0, position: 10), (offset: 1, position: 30)], itemCount: 3, attachedAt: .lower, edge: 90)
        #expect(goesOn.map { [$0.after, $0.through] } == [10, 90])
    }

    @Test func knownRowsOutOfTheFeedsOrderProveNothing() {
        let stretch = DeletionProof.stretch(
            known: [(offset: 0, position: 30), (offset: 1, position: 10)], itemCount: 2, attachedAt: .lower, edge: 90)
        #expect(stretch == nil)
        #expect(DeletionProof.stretch(known: [], itemCount: 2, attachedAt: .upper, edge: 0) == nil)
    }

    @Test func anotherGapCutsTheStretchButThePagesOwnDoesNot() {
        let upper = DeletionProof.cut((after: 10, through: 90), atGaps: [10, 40, 70], attachedAt: .upper, filling: 10)
        #expect(upper.map { [$0.after, $0.through] } == [10, 40])
        let lower = DeletionProof.cut((after: 10, through: 90), atGaps: [40, 70, 90], attachedAt: .lower, filling: 90)
        #expect(lower.map { [$0.after, $0.through] } == [70, 90])
        let own = DeletionProof.cut((after: 10, through: 90), atGaps: [50], attachedAt: .upper, filling: 50)
        #expect(own.map { [$0.after, $0.through] } == [10, 90])
    }

    // MARK: - What it proves

    @Test func serverRowsThePageSkipsAreDeletedLocalRowsStay() {
        let plan = DeletionProof.plan(
            rows: rows(["a", "b", "mine", "c"], local: ["mine"]), in: (after: 0, through: 40), listed: ["a", "c"],
            limit: 3, removals: [])
        #expect(plan.deleted.map(\.itemID) == ["b"])
        #expect(plan.published.isEmpty)
    }

    @Test func aLocalRowThePageListsIsPublished() {
        let plan = DeletionProof.plan(
            rows: rows(["a", "mine", "b"], local: ["mine"]), in: (after: 0, through: 30), listed: ["a", "mine", "b"],
            limit: 3, removals: [])
        #expect(plan.published == [20])
        #expect(plan.deleted.isEmpty)
    }

    @Test func aPageProvesAtMostAsManyDeletionsAsItHasItems() {
        let plan = DeletionProof.plan(
            rows: rows(["a", "b", "c", "d", "e"]), in: (after: 0, through: 50), listed: ["a", "e"], limit: 2,
            removals: [])
        #expect(plan.deleted.isEmpty, "three missing rows are an item that moved, not three deletions")
    }

    @Test func aPendingRemovalWhoseNeighboursThePageListsIsSettled() {
        let removal = DeletionProof.PendingRemoval(itemID: "gone", above: ("a", 10), below: ("b", 20))
        let plan = DeletionProof.plan(
            rows: rows(["b"], from: 20), in: (after: 10, through: 20), listed: ["a", "b"], limit: 2,
            removals: [removal])
        #expect(plan.settled == ["gone"])
        let listedAgain = DeletionProof.plan(
            rows: rows(["b"], from: 20), in: (after: 10, through: 20), listed: ["a", "gone", "b"], limit: 3,
            removals: [removal])
        #expect(listedAgain.settled.isEmpty, "the page lists the item: the server still has it")
        let outside = DeletionProof.plan(
            rows: rows(["b"], from: 20), in: (after: 15, through: 20), listed: ["a", "b"], limit: 2,
            removals: [removal])
        #expect(outside.settled.isEmpty, "a neighbour outside the stretch proves nothing")
    }

    @Test func aQueuedRemovalIsNeverSettledByAPage() {
        let queued = DeletionProof.PendingRemoval(itemID: "gone", above: ("a", 10), below: ("b", 20), queued: true)
        let plan = DeletionProof.plan(
            rows: rows(["b"], from: 20), in: (after: 10, through: 20), listed: ["a", "b"], limit: 2,
            removals: [queued])
        #expect(plan.settled.isEmpty, "the server has not had the user's removal yet: the item may have moved")
        #expect(plan.displaced == ["gone"], "its place is wrong all the same")
        #expect(plan.deleted.isEmpty)
    }

    @Test func aRemovalWhoseItemThePageListsElsewhereIsDisplacedNeverSettled() {
        for queued in [false, true] {
            let removal = DeletionProof.PendingRemoval(
                itemID: "moved", above: ("a", 10), below: ("b", 20), queued: queued)
            let plan = DeletionProof.plan(
                rows: rows(["b", "c", "moved"], from: 20), in: (after: 10, through: 40),
                listed: ["a", "b", "c", "moved"], limit: 4, removals: [removal])
            #expect(plan.displaced == ["moved"], "listed below the row it was above: it moved")
            #expect(plan.settled.isEmpty, "the server still has it")
        }
    }

    @Test func aDisplacedRemovalMovesBetweenTheRowsThePageListsItsItemBetween() {
        let removal = DeletionProof.PendingRemoval(itemID: "moved", above: ("a", 10), below: ("b", 20), queued: true)
        let between = DeletionProof.plan(
            rows: rows(["b", "c", "d"], from: 20), in: (after: 10, through: 40),
            listed: ["a", "b", "c", "moved", "d"], limit: 5, removals: [removal])
        #expect(between.movedTo == ["moved": DeletionProof.Place(above: "c", below: "d")])
        let last = DeletionProof.plan(
            rows: rows(["b", "c"], from: 20), in: (after: 10, through: 30), listed: ["a", "b", "c", "moved"],
            limit: 4, removals: [removal])
        #expect(last.displaced == ["moved"])
        #expect(last.movedTo.isEmpty, "listed last: the row below it is not known")
        let nextToANewItem = DeletionProof.plan(
            rows: rows(["b", "c"], from: 20), in: (after: 10, through: 30), listed: ["a", "b", "new", "moved", "c"],
            limit: 5, removals: [removal])
        #expect(nextToANewItem.movedTo.isEmpty, "a row the feed does not have is no place to name")
    }

    @Test func aRemovalWhosePlaceIsLostTakesThePlaceThePageListsItAtAndIsNeverSettled() {
        for queued in [false, true] {
            let lost = DeletionProof.PendingRemoval(itemID: "lost", queued: queued, placeLost: true)
            let listed = DeletionProof.plan(
                rows: rows(["b", "c", "d"], from: 20), in: (after: 10, through: 40),
                listed: ["a", "b", "c", "lost", "d"], limit: 5, removals: [lost])
            #expect(listed.movedTo == ["lost": DeletionProof.Place(above: "c", below: "d")])
            #expect(listed.settled.isEmpty, "nothing proves where a lost place was")
            let unlisted = DeletionProof.plan(
                rows: rows(["b", "c"], from: 20), in: (after: 10, through: 30), listed: ["a", "b", "c"], limit: 3,
                removals: [lost])
            #expect(unlisted.displaced.isEmpty && unlisted.settled.isEmpty, "a page not listing it says nothing")
        }
    }

    @Test func aDisplacedRemovalListedNextToAnotherRemovedItemNamesThatItem() {
        let moved = DeletionProof.PendingRemoval(itemID: "moved", above: ("a", 10), below: ("b", 20), queued: true)
        let other = DeletionProof.PendingRemoval(itemID: "other", above: ("b", 20), below: ("c", 30), queued: true)
        let plan = DeletionProof.plan(
            rows: rows(["b", "c", "d"], from: 20), in: (after: 10, through: 40),
            listed: ["a", "b", "c", "moved", "other", "d"], limit: 6, removals: [moved, other])
        #expect(
            plan.movedTo == [
                "moved": DeletionProof.Place(above: "c", below: "other"),
                "other": DeletionProof.Place(above: "moved", below: "d"),
            ], "each names the other, and the rows beyond")
        let beforeAnUnknownItem = DeletionProof.plan(
            rows: rows(["b", "c"], from: 20), in: (after: 10, through: 30),
            listed: ["a", "b", "c", "moved", "other", "new"], limit: 6, removals: [moved, other])
        #expect(beforeAnUnknownItem.movedTo.isEmpty, "no row the feed has below them: no place to name")
    }

    @Test func aRemovalWhoseItemThePageListsBetweenItsRowsKeepsItsPlace() {
        let removal = DeletionProof.PendingRemoval(itemID: "back", above: ("a", 10), below: ("b", 25), queued: true)
        let plan = DeletionProof.plan(
            rows: rows(["back", "b"], from: 15), in: (after: 10, through: 25), listed: ["a", "back", "b"], limit: 3,
            removals: [removal])
        #expect(plan == DeletionProof.Plan())
    }

    @Test func aRemovalWhoseRowsThePageDoesNotBothListKeepsItsPlace() {
        let removal = DeletionProof.PendingRemoval(itemID: "gone", above: ("a", 10), below: ("b", 20), queued: true)
        let oneSide = DeletionProof.plan(
            rows: rows(["b"], from: 20), in: (after: 10, through: 20), listed: ["b", "c"], limit: 2,
            removals: [removal])
        #expect(oneSide.displaced.isEmpty, "a page that starts at the row below says nothing of what was above it")
        let outside = DeletionProof.plan(
            rows: rows(["b"], from: 20), in: (after: 15, through: 20), listed: ["a", "b"], limit: 2,
            removals: [removal])
        #expect(outside.displaced.isEmpty, "a neighbour outside the stretch proves nothing")
    }
}
