import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A refresh whose own transaction trims the feed to its row limit: its change and the trim go out
/// as one batch. Rows the trim cut are deleted old rows when the refresh left them in place, and
/// anything else reloads the list whole.
@Suite(.limit(minutes: 3)) struct RefreshTrimmedInItsOwnTransactionTests {
    /// The refresh's `change` of `old` (which gives `merged`) followed by a trim of the bottom
    /// `removed` rows; when it is a batch, checks that it turns `old` into the trimmed rows.
    func trimmed(_ old: [String], _ change: RowChange, merged: [String], removing removed: Int) throws -> RowChange {
        let combined = change.followed(byTrimming: removed, of: merged.count)
        guard !combined.isFullReload else { return combined }
        let expected = Array(merged.dropLast(removed))
        let batch = SectionLayout.feedChange(
            combined, from: SectionLayout(unsectionedRowCount: old.count),
            to: SectionLayout(unsectionedRowCount: expected.count))
        #expect(!batch.isFullReload, "the change fits the rows before and after")
        #expect(try BatchUpdate.apply(batch, to: old, new: expected) == expected)
        return combined
    }

    @Test func rowsTrimmedBelowNewItemsOnTopAreDeletedAtTheirOldIndices() throws {
        let change = try trimmed(
            ["a", "b", "c", "d"], RowChange(inserted: [0, 1]), merged: ["x", "y", "a", "b", "c", "d"], removing: 2)
        #expect(change == RowChange(deleted: [2, 3], inserted: [0, 1]))
    }

    @Test func reloadedRowsAboveTheTrimStayReloaded() throws {
        let change = try trimmed(
            ["a", "b", "c", "d"], RowChange(inserted: [0], reloaded: [1], reloadedIDs: ["b"]),
            merged: ["x", "a", "b", "c", "d"], removing: 2)
        #expect(change == RowChange(deleted: [2, 3], inserted: [0], reloaded: [1], reloadedIDs: ["b"]))
    }

    @Test func aTrimThatReachesAReloadedRowReloadsTheWholeList() throws {
        let change = try trimmed(
            ["a", "b", "c"], RowChange(inserted: [0], reloaded: [2], reloadedIDs: ["c"]),
            merged: ["x", "a", "b", "c"], removing: 1)
        #expect(change.isFullReload)
    }

    @Test func aTrimAfterARefreshThatDeletedOrMovedRowsReloadsTheWholeList() throws {
        let deleting = try trimmed(
            ["a", "b", "c", "d"], RowChange(deleted: [0], inserted: [0]), merged: ["x", "b", "c", "d"], removing: 1)
        #expect(deleting.isFullReload)
        let moving = try trimmed(
            ["a", "b", "c", "d"], RowChange(moved: [(from: 1, to: 0)]), merged: ["b", "a", "c", "d"], removing: 1)
        #expect(moving.isFullReload)
    }

    @Test func aTrimOfMoreRowsThanTheRefreshKeptReloadsTheWholeList() throws {
        let change = try trimmed(["a"], RowChange(inserted: [0, 1, 2]), merged: ["x", "y", "z", "a"], removing: 2)
        #expect(change.isFullReload)
    }

    @Test func aTrimThatCutsRowsTheRefreshInsertedReloadsTheWholeList() throws {
        let change = try trimmed(
            ["a", "b", "c"], RowChange(inserted: [0, 4]), merged: ["x", "a", "b", "c", "y"], removing: 2)
        #expect(change.isFullReload)
    }

    @Test func aFullReloadStaysAFullReload() throws {
        let change = try trimmed(["a", "b"], .fullReload, merged: ["x", "y", "z"], removing: 1)
        #expect(change.isFullReload)
    }

    @Test func aTrimThatCutNothingLeavesTheChangeAsItWas() throws {
        let refresh = RowChange(inserted: [0], reloaded: [1], reloadedIDs: ["b"])
        #expect(try trimmed(["a", "b"], refresh, merged: ["x", "a", "b"], removing: 0) == refresh)
    }

    @Test func rowCountsOutOfRangeReloadTheWholeListInsteadOfTrapping() {
        #expect(RowChange(inserted: [0]).followed(byTrimming: 1, of: .min).isFullReload)
        #expect(RowChange().followed(byTrimming: .max, of: -2).isFullReload)
    }
}
