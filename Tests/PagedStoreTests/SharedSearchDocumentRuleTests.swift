import TestSupport
import Testing

@testable import PagedStore

/// A shared item's one document holds each distinct text its rows show, once and in their order;
/// a match shows the first row when every row shows one copy, else the first whose own text the
/// query matches, and none when no row does.
@Suite(.limit(minutes: 1)) struct SharedSearchDocumentRuleTests {
    @Test func theDocumentHoldsEachDistinctTextOnce() {
        #expect(SharedSearchDocument.text(of: ["server walrus"]) == "server walrus")
        #expect(SharedSearchDocument.text(of: ["server walrus", "server walrus"]) == "server walrus")
        #expect(SharedSearchDocument.text(of: ["draft otter", "server walrus"]) == "draft otter server walrus")
        #expect(SharedSearchDocument.text(of: ["a", "b", "a", "c"]) == "a b c")
    }

    @Test func rowsWithoutTextAddNothingAndNoTextMeansNoDocument() {
        #expect(SharedSearchDocument.text(of: [nil, "otter", nil]) == "otter")
        #expect(SharedSearchDocument.text(of: [nil, nil]) == nil)
        #expect(SharedSearchDocument.text(of: []) == nil)
    }

    @Test func oneCopyShowsTheFirstRowWithoutReadingAny() {
        var asked: [Int] = []
        let shown = SharedSearchDocument.rowShowing(count: 3, sameCopy: true) {
            asked.append($0)
            return false
        }
        #expect(shown == 0)
        #expect(asked.isEmpty)
    }

    @Test func differentCopiesShowTheFirstRowHoldingTheQuery() {
        #expect(SharedSearchDocument.rowShowing(count: 3, sameCopy: false) { $0 == 1 } == 1)
        #expect(SharedSearchDocument.rowShowing(count: 3, sameCopy: false) { $0 >= 1 } == 1)
        #expect(SharedSearchDocument.rowShowing(count: 3, sameCopy: false) { _ in false } == nil)
        #expect(SharedSearchDocument.rowShowing(count: 0, sameCopy: true) { _ in true } == nil)
    }
}
