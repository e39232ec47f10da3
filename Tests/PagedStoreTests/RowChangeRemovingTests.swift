import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A change followed by the removal of rows it leads to (rows found undecodable while its window is
/// read), as one batch: it turns the rows before the change into the rows after both.
@Suite(.limit(minutes: 3)) struct RowChangeRemovingTests {
    /// Applies `change` then the removal of the rows at `removed` to `old`, as one batch, checking it
    /// gives `expected`; `middle` is what `change` alone gives.
    func check(
        _ old: [String], _ change: RowChange, middle: [String], removing removed: [Int], expected: [String]
    ) throws {
        let combined = change.followed(
            byRemoving: removed, ids: Set(removed.map { middle[$0] }), oldCount: old.count)
        let batch = SectionLayout.feedChange(
            combined, from: SectionLayout(unsectionedRowCount: old.count),
            to: SectionLayout(unsectionedRowCount: expected.count))
        #expect(try BatchUpdate.apply(batch, to: old, new: expected) == expected)
        #expect(combined.reloadedIDs.allSatisfy(expected.contains))
    }

    @Test func aRemovedRowTheChangeInsertedIsNoLongerInserted() throws {
        try check(
            ["a", "b", "c"], RowChange(inserted: [0, 1]), middle: ["x", "y", "a", "b", "c"], removing: [1],
            expected: ["x", "a", "b", "c"])
    }

    @Test func aRemovedOldRowIsDeletedAtItsOldIndex() throws {
        try check(
            ["a", "b", "c"], RowChange(inserted: [0, 1]), middle: ["x", "y", "a", "b", "c"], removing: [3],
            expected: ["x", "y", "a", "c"])
    }

    @Test func aRemovedRowTheChangeMovedIsDeletedWhereItWas() throws {
        try check(
            ["a", "b", "c"], RowChange(moved: [(from: 2, to: 0)]), middle: ["c", "a", "b"], removing: [0],
            expected: ["a", "b"])
    }

    @Test func aRemovedRowIsNoLongerReloadedAndTheRowsBelowMoveUp() throws {
        try check(
            ["a", "b", "c", "d", "e"],
            RowChange(deleted: [1], inserted: [0, 4], reloaded: [3], reloadedIDs: ["d"], moved: []),
            middle: ["x", "a", "c", "d", "y", "e"], removing: [2, 3], expected: ["x", "a", "y", "e"])
    }

    @Test func aFullReloadStaysOne() {
        #expect(RowChange.fullReload.followed(byRemoving: [0], ids: ["a"], oldCount: 3) == .fullReload)
    }
}
