import Foundation
import Testing

@testable import PagedStore

/// The pure merge on its own: no database, just pages and heads.
@Suite struct RefreshMergeTests {
    static func item(_ id: String, _ payload: String = "v0") -> EncodedItem {
        EncodedItem(itemID: id, payload: Data(payload.utf8))
    }

    static func head(_ ids: [String]) -> [StoredItem] {
        ids.enumerated().map { row, id in
            StoredItem(itemID: id, position: Int64(row) * 10, section: nil, payload: Data("v0".utf8))
        }
    }

    static func plan(_ page: [EncodedItem], _ head: [StoredItem], deep: [StoredItem] = []) -> RefreshMerge.Plan {
        var matches: [String: StoredItem] = [:]
        let ids = Set(page.map(\.itemID))
        for row in head + deep where ids.contains(row.itemID) { matches[row.itemID] = row }
        return RefreshMerge.plan(page: page, head: head, matches: matches) { Int($0 / 10) }
    }

    @Test func newItemsAboveAnUnchangedHeadAreAPrepend() {
        let plan = Self.plan(
            [Self.item("n0"), Self.item("n1"), Self.item("c0"), Self.item("c1")], Self.head(["c0", "c1", "c2"]))
        #expect(plan == .prepend(newItems: [Self.item("n0"), Self.item("n1")], reloads: []))
    }

    @Test func aChangedPayloadInTheOverlapIsAReload() {
        let plan = Self.plan([Self.item("n0"), Self.item("c0"), Self.item("c1", "v1")], Self.head(["c0", "c1", "c2"]))
        #expect(plan == .prepend(newItems: [Self.item("n0")], reloads: [(row: 1, item: Self.item("c1", "v1"))]))
    }

    @Test func noSharedIdIsNoOverlap() {
        #expect(Self.plan([Self.item("x"), Self.item("y")], Self.head(["a", "b"])) == .noOverlap)
    }

    @Test func idsSharedOnlyBelowTheHeadAreNoProofOfOverlap() {
        let deep = [StoredItem(itemID: "z", position: 5000, section: nil, payload: Data("v0".utf8))]
        #expect(Self.plan([Self.item("x"), Self.item("z")], Self.head(["a", "b"]), deep: deep) == .noOverlap)
    }

    @Test func aReorderedHeadIsARewriteWithDeletionsAndMoves() {
        // Cached a b c d; the server now lists x c a: b is gone, c moved above a, x is new.
        let plan = Self.plan([Self.item("x"), Self.item("c"), Self.item("a")], Self.head(["a", "b", "c", "d"]))
        let expected = RowChange(deleted: [1], inserted: [0], moved: [(from: 2, to: 1)])
        #expect(plan == .rewrite(throughPosition: 20, relocated: [], change: expected))
    }

    @Test func aMovedRowWhosePayloadChangedIsADeleteAndAnInsert() {
        // Cached a b c; the server lists b c a′: b and c keep their order, so a is the row that moves,
        // and as its content changed too it goes as a deletion and an insertion (tables refuse to
        // move and reload one row in the same batch).
        let plan = Self.plan([Self.item("b"), Self.item("c"), Self.item("a", "v1")], Self.head(["a", "b", "c"]))
        #expect(plan == .rewrite(throughPosition: 20, relocated: [], change: RowChange(deleted: [0], inserted: [2])))
    }

    @Test func theLongestIncreasingRunKeepsTheMostRowsInPlace() {
        let run = RefreshMerge.longestIncreasingRun([3, 1, 2, 5, 4, 6])
        #expect(run.count == 4)
        #expect(run == run.sorted())
        #expect(RefreshMerge.longestIncreasingRun([]).isEmpty)
        #expect(RefreshMerge.longestIncreasingRun([5, 4, 3]).count == 1)
    }
}
