import TestSupport
import Testing

@testable import PagedStore

/// How a list takes a recorded change against the rows it holds.
@Suite(.limit(minutes: 3)) struct RowChangeCheckingTests {
    typealias Rows = RowChange.ShownRows

    @Test func anItemDeletedAndInsertedAgainInOneChangeIsReconfigured() {
        // One write deleted x from the top and put y there; a later one brought x back at the bottom.
        let change = RowChange(deleted: [0], inserted: [0, 3])
        let checked = change.checked(
            from: Rows(ids: ["x", "a", "b"], start: 0, count: 3),
            to: Rows(ids: ["y", "a", "b", "x"], start: 0, count: 4))
        #expect(checked.reloadedIDs == ["x"])
        #expect(checked.deleted == [0] && checked.inserted == [0, 3])
    }

    @Test func aRowReplacedByAnotherCopyOfItsItemInOneWriteIsReconfigured() {
        // A write of this feed's own (a confirmed insert taking the server's copy's place): no record
        // to check, but the id the write deleted and inserted again is named all the same.
        let replaced = RowChange(deleted: [0], inserted: [0]).namingReinserted(
            from: Rows(ids: ["posted", "a"], start: 0, count: 2), to: Rows(ids: ["posted", "a"], start: 0, count: 2))
        #expect(replaced.reloadedIDs == ["posted"])
        let unchanged = RowChange(inserted: [0])
        #expect(
            unchanged.namingReinserted(
                from: Rows(ids: ["a"], start: 0, count: 1), to: Rows(ids: ["n", "a"], start: 0, count: 2)) == unchanged)
    }

    @Test func anItemDeletedForGoodIsNotNamed() {
        let checked = RowChange(deleted: [0]).checked(
            from: Rows(ids: ["x", "a"], start: 0, count: 2), to: Rows(ids: ["a"], start: 0, count: 1))
        #expect(checked.reloadedIDs.isEmpty)
    }

    @Test func aChangeThatContradictsTheRowsIsOneFullReload() {
        let checked = RowChange(inserted: [0]).checked(
            from: Rows(ids: ["a"], start: 0, count: 1), to: Rows(ids: ["b", "x"], start: 0, count: 2))
        #expect(checked.isFullReload)
    }
}
