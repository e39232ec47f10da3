import TestSupport
import Testing

@testable import PagedStore

/// Where a page that repeats rows the feed has is attached, for the proof of the rows it skipped:
/// the rule alone, on ids and positions.
@Suite(.limit(minutes: 3)) struct PagesRepeatingCachedRowsTests {
    /// The offsets of the rows `proof` repeats, and their positions.
    func repeated(_ proof: SkippedRowsRule.Proof?) -> (offsets: [Int], positions: [Int64]) {
        (proof?.repeated.map(\.offset) ?? [], proof?.repeated.map(\.position) ?? [])
    }

    @Test func aNextPageThatRepeatsRowsFromItsFirstItemIsAttachedAtTheOldBottom() {
        let proof = SkippedRowsRule.proof(
            of: .next(bottom: 50), itemIDs: ["c", "e", "new"], known: ["c": 30, "e": 50, "new": 60])
        #expect(proof?.edge == .lower(50))
        #expect(repeated(proof).offsets == [0, 1])
        #expect(repeated(proof).positions == [30, 50], "the row the page just appended below the bottom is its own")
    }

    @Test func aNextPageThatOpensWithItemsTheFeedLacksProvesNothing() {
        let proof = SkippedRowsRule.proof(
            of: .next(bottom: 50), itemIDs: ["new", "c"], known: ["new": 60, "c": 30])
        #expect(proof == nil, "an item that moved down a ranked list is out of the feed's order")
    }

    @Test func aNewerPageWithNewItemsIsAttachedRightAboveTheTopRow() {
        let proof = SkippedRowsRule.proof(
            of: .newer(top: 10), itemIDs: ["x", "a", "c"], known: ["a": 10, "c": 30])
        #expect(proof?.edge == .aboveTopRow(10))
        #expect(repeated(proof).offsets == [1, 2])
    }

    @Test func aNewerPageThatOpensOnARepeatedRowIsAttachedAtItsLastRepeatedRow() {
        let proof = SkippedRowsRule.proof(
            of: .newer(top: 10), itemIDs: ["a", "c", "x"], known: ["a": 10, "c": 30])
        #expect(proof?.edge == .lower(30))
        #expect(repeated(proof).positions == [10, 30])
    }

    @Test func aPageThatRepeatsNoRowProvesNothing() {
        #expect(SkippedRowsRule.proof(of: .next(bottom: 50), itemIDs: ["x", "y"], known: ["y": 60]) == nil)
        #expect(SkippedRowsRule.proof(of: .newer(top: 10), itemIDs: ["x", "y"], known: [:]) == nil)
        #expect(SkippedRowsRule.proof(of: .newer(top: nil), itemIDs: [], known: [:]) == nil)
    }
}
