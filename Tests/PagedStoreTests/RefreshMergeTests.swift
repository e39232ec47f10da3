import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The pure merge on its own: no database, just pages and heads.
@Suite(.limit(minutes: 3)) struct RefreshMergeTests {
    static func item(_ id: String, _ payload: String = "v0") -> EncodedItem {
        EncodedItem(itemID: id, payload: Data(payload.utf8))
    }

    static func head(_ ids: [String]) -> [StoredItem] {
        ids.enumerated().map { row, id in
            StoredItem(itemID: id, position: Int64(row) * 10, section: nil, payload: Data("v0".utf8))
        }
    }

    static func plan(
        _ page: [EncodedItem], _ head: [StoredItem], deep: [StoredItem] = [], order: FeedPolicy.ItemOrder = .fixed,
        hiddenAboveTheTop: Int = 0
    ) -> RefreshMerge.Plan {
        var matches: [String: StoredItem] = [:]
        let ids = Set(page.map(\.itemID))
        for row in head + deep where ids.contains(row.itemID) { matches[row.itemID] = row }
        return RefreshMerge.plan(
            page: page, head: head, matches: matches, order: order, hiddenAboveTheTop: hiddenAboveTheTop
        ) { Int($0 / 10) }
    }

    @Test func newItemsAboveAnUnchangedHeadAreAPrepend() {
        let plan = Self.plan(
            [Self.item("n0"), Self.item("n1"), Self.item("c0"), Self.item("c1")], Self.head(["c0", "c1", "c2"]))
        #expect(plan == .prepend(newItems: [Self.item("n0"), Self.item("n1")], reloads: []))
    }

    @Test func inAListOrderedByActivityOneSharedRowListedLastProvesNoOverlap() {
        let page = [Self.item("n0"), Self.item("n1"), Self.item("c0")]
        let head = Self.head(["c0", "c1", "c2"])
        #expect(Self.plan(page, head, order: .byActivity) == .noOverlap, "c0 may have moved up from above new items")
        #expect(Self.plan(page, head) == .prepend(newItems: [Self.item("n0"), Self.item("n1")], reloads: []))
        let two = [Self.item("n0"), Self.item("c0"), Self.item("c1")]
        #expect(
            Self.plan(two, head, order: .byActivity) == .prepend(newItems: [Self.item("n0")], reloads: []),
            "two rows in their cached order: the page reached them")
        #expect(Self.plan([Self.item("c0")], head, order: .byActivity) == .prepend(newItems: [], reloads: []))
    }

    @Test func inAListOrderedByActivityTheTopRowUnderHiddenItemsThePageLeavesOutMayHaveMoved() {
        let page = [Self.item("c0"), Self.item("n0"), Self.item("n1")]
        let head = Self.head(["c0", "c1", "c2"])
        #expect(Self.plan(page, head, order: .byActivity, hiddenAboveTheTop: 2) == .noOverlap)
        #expect(Self.plan(page, head, order: .byActivity) != .noOverlap, "nothing above c0: the page starts there")
        #expect(Self.plan(page, head, hiddenAboveTheTop: 2) != .noOverlap, "ordered by creation, c0 stays")
        let run = [Self.item("n0"), Self.item("c0"), Self.item("c1")]
        #expect(
            Self.plan(run, head, order: .byActivity, hiddenAboveTheTop: 2)
                == .prepend(newItems: [Self.item("n0")], reloads: []),
            "two rows in their cached order: the page reached them")
    }

    @Test func aChangedPayloadInTheOverlapIsAReload() {
        let plan = Self.plan([Self.item("n0"), Self.item("c0"), Self.item("c1", "v1")], Self.head(["c0", "c1", "c2"]))
        #expect(plan == .prepend(newItems: [Self.item("n0")], reloads: [(row: 1, item: Self.item("c1", "v1"))]))
    }

    @Test func aChangedRowThatMovesIsADeleteAndAnInsertAndIsReconfigured() {
        // Cached a b c d e; the server moves d up and changes it: a batch gives it a new cell, and a
        // diffable data source, which sees the same id move, must be told to reconfigure it.
        let head = Self.head(["a", "b", "c", "d", "e"])
        let plan = Self.plan(
            [Self.item("a"), Self.item("d", "v1"), Self.item("b"), Self.item("c"), Self.item("e")], head)
        let expected = RowChange(deleted: [3], inserted: [1], reloadedIDs: ["d"])
        #expect(plan == .rewrite(throughPosition: 40, relocated: [], change: expected))
    }

    @Test func noSharedIdIsNoOverlap() {
        #expect(Self.plan([Self.item("x"), Self.item("y")], Self.head(["a", "b"])) == .noOverlap)
    }

    @Test func idsSharedOnlyBelowTheHeadAreNoProofOfOverlap() {
        let deep = [StoredItem(itemID: "z", position: 5000, section: nil, payload: Data("v0".utf8))]
        #expect(Self.plan([Self.item("x"), Self.item("z")], Self.head(["a", "b"]), deep: deep) == .noOverlap)
    }

    @Test func aRowBumpedUpFromBelowThePagesLastItemIsRelocatedAndTheRowsBetweenStay() {
        // Cached a b c d; the server lists x c a. The page covers the list down to a only, so b (below
        // a in the cache, not covered) is no proof of a deletion: c was bumped above a, x is new.
        let head = Self.head(["a", "b", "c", "d"])
        let plan = Self.plan([Self.item("x"), Self.item("c"), Self.item("a")], head)
        let expected = RowChange(deleted: [2], inserted: [0, 1])
        #expect(plan == .rewrite(throughPosition: 0, relocated: [head[2]], change: expected))
    }

    @Test func rowsCoveredByThePageButNotListedAreDeletions() {
        // Cached a b c d; the server lists x c d: the page covers the list down to d, and b is not in it.
        let plan = Self.plan([Self.item("x"), Self.item("c"), Self.item("d")], Self.head(["a", "b", "c", "d"]))
        #expect(
            plan == .rewrite(throughPosition: 30, relocated: [], change: RowChange(deleted: [0, 1], inserted: [0])))
    }

    @Test func aLoneSharedRowProvesNoDeletionsARunProvesAny() {
        // Cached a…l; the server lists x y k: k may have been bumped up (a thread with a new message,
        // a post bumped after x and y were published), and a…j may be below the page. No overlap:
        // the gap policy decides. As near the top as c, and with y below it, the same.
        let head = Self.head(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"])
        #expect(Self.plan([Self.item("x"), Self.item("y"), Self.item("k")], head) == .noOverlap)
        #expect(Self.plan([Self.item("x"), Self.item("y"), Self.item("c")], head) == .noOverlap)
        #expect(Self.plan([Self.item("x"), Self.item("c"), Self.item("y")], head) == .noOverlap)
        // The server lists x k l: k and l are listed as they are cached, a run that did not move, and
        // a…j above them are deletions, however many.
        let deletions = Self.plan([Self.item("x"), Self.item("k"), Self.item("l")], head)
        let deleted = RowChange(deleted: Array(0..<10), inserted: [0])
        #expect(deletions == .rewrite(throughPosition: 110, relocated: [], change: deleted))
        // The server lists x a k: the overlap ends at a, and k is relocated from its row.
        let plan = Self.plan([Self.item("x"), Self.item("a"), Self.item("k")], head)
        let expected = RowChange(deleted: [10], inserted: [0, 2])
        #expect(plan == .rewrite(throughPosition: 0, relocated: [head[10]], change: expected))
    }

    @Test func newItemsBelowThePagesLastSharedRowDoNotJoinTheRowsBelow() {
        // Cached a b c; the server lists x a y: a, the cached top, ends the overlap with no deletion,
        // and what the server lists between y and b is unknown.
        let onTop = Self.plan([Self.item("x"), Self.item("a"), Self.item("y")], Self.head(["a", "b", "c"]))
        let expected = RowChange(inserted: [0, 2])
        #expect(onTop == .rewrite(throughPosition: 0, relocated: [], change: expected, joinsBelow: false))
    }

    @Test func aRowMovedDownBelowOthersRelocatesTheRowsItPassed() {
        // Cached a b c; the server lists b c a′. The page ends at a, the cached top, so b and c were
        // bumped above it: they are relocated (deleted and inserted), and a′ is a reload of row 0.
        let head = Self.head(["a", "b", "c"])
        let plan = Self.plan([Self.item("b"), Self.item("c"), Self.item("a", "v1")], head)
        let expected = RowChange(deleted: [1, 2], inserted: [0, 1], reloaded: [0], reloadedIDs: ["a"])
        #expect(plan == .rewrite(throughPosition: 0, relocated: [head[1], head[2]], change: expected))
    }

    @Test func theLongestIncreasingRunKeepsTheMostRowsInPlace() {
        let run = RefreshMerge.longestIncreasingRun([3, 1, 2, 5, 4, 6])
        #expect(run.count == 4)
        #expect(run == run.sorted())
        #expect(RefreshMerge.longestIncreasingRun([]).isEmpty)
        #expect(RefreshMerge.longestIncreasingRun([5, 4, 3]).count == 1)
    }

    @Test func aPageOnTopGoesPastAGapAboveTheTopOnlyWhenItListsEveryRowWhoseRemovalWaitsAboveIt() {
        // Rows whose removals wait: a (10) and b (20) above the gap at 30, c (40) above the one at 50.
        let waiting = [("a", 10), ("b", 20), ("c", 40)].map { RefreshMerge.WaitingRemoval(itemID: $0, position: $1) }
        let past = { (listed: Set<String>) in
            RefreshMerge.gapsThePageWentPast([30, 50], waiting: waiting, listed: listed)
        }
        #expect(past(["a", "b", "n"]) == [30], "the rows above 30 listed; c, above 50, is not")
        #expect(past(["a", "b", "c"]) == [30, 50])
        #expect(past(["a", "n"]).isEmpty, "b is not listed: what lies between the page and it is unknown")
        #expect(RefreshMerge.gapsThePageWentPast([30], waiting: [], listed: ["n"]).isEmpty, "no row above it waits")
    }
}
