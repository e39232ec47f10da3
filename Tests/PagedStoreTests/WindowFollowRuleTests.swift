import TestSupport
import Testing

@testable import PagedStore

/// A list follows a change that only reloads rows by reading those rows of its window, and every
/// other change by reading its window again.
@Suite(.limit(minutes: 1)) struct WindowFollowRuleTests {
    static func plan(
        _ change: RowChange?, held: Int = 1_000, file: Int = 1_000, start: Int = 100, count: Int = 300
    )
        -> WindowFollowRule.Plan
    {
        WindowFollowRule.plan(
            for: change, heldRows: held, fileRows: file, windowStart: start, windowCount: count, capacity: 300)
    }

    @Test func reloadsReadOnlyTheReloadedRowsOfTheWindow() {
        let change = RowChange(reloaded: [450, 99, 100, 399, 400, 120], reloadedIDs: [])
        #expect(Self.plan(change) == .readRows([0, 20, 299]))
    }

    @Test func reloadsOutsideTheWindowReadNothing() {
        #expect(Self.plan(RowChange(reloaded: [999], reloadedIDs: ["deep"])) == .readRows([]))
    }

    @Test func aWindowHoldingRowsAsHandedOverReadsTheWindow() {
        let plan = WindowFollowRule.plan(
            for: RowChange(reloaded: [999]), heldRows: 1_000, fileRows: 1_000, windowStart: 0, windowCount: 300,
            capacity: 300, holdsHandedOver: true)
        #expect(plan == .readWindow)
    }

    @Test func anyOtherChangeReadsTheWindow() {
        #expect(Self.plan(nil) == .readWindow)
        #expect(Self.plan(.fullReload) == .readWindow)
        #expect(Self.plan(RowChange(deleted: [999], reloaded: [5]), file: 999) == .readWindow)
        #expect(Self.plan(RowChange(inserted: [0])) == .readWindow)
        #expect(Self.plan(RowChange(moved: [(from: 1, to: 2)])) == .readWindow)
    }

    @Test func aRecordThatDoesNotFitTheRowsReadsTheWindow() {
        // Counts that changed, or a reload beyond the rows: the record lies.
        #expect(Self.plan(RowChange(reloaded: [5]), file: 1_001) == .readWindow)
        #expect(Self.plan(RowChange(reloaded: [1_000])) == .readWindow)
        #expect(Self.plan(RowChange(reloaded: [-1])) == .readWindow)
    }

    @Test func aWindowNotWhereAReadWouldPutItReadsTheWindow() {
        // Shorter than it would be, or past the place a read would start it.
        #expect(Self.plan(RowChange(reloaded: [5]), count: 200) == .readWindow)
        #expect(Self.plan(RowChange(reloaded: [5]), start: 800, count: 200) == .readWindow)
        #expect(Self.plan(RowChange(reloaded: [5]), held: 50, file: 50, start: 0, count: 50) == .readRows([5]))
    }
}
