import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The change between two windows of a live search's results applies as a batch update reads it,
/// and tells a result that changed from one that only moved.
@Suite(.limit()) struct SearchResultsChangeTests {
    typealias Entry = SearchResultsChange.Entry

    func entries(_ ids: String, version: [Character: UInt8] = [:]) -> [Entry] {
        ids.map { Entry(id: String($0), version: Data([version[$0] ?? 0])) }
    }

    @Test func aResultThatCameIsInsertedAndOneThatLeftIsDeleted() {
        let change = SearchResultsChange.between(entries("abc"), entries("xac"))
        #expect(change.inserted == [0])
        #expect(change.deleted == [1])
        #expect(change.moved.isEmpty)
        #expect(change.reloaded.isEmpty)
    }

    @Test func aResultThatChangedInPlaceIsReloadedAndOneThatMovedIsOnlyNamed() {
        let change = SearchResultsChange.between(entries("abc"), entries("cab", version: ["a": 1, "c": 1]))
        #expect(change.moved.map(\.from) == [2])
        #expect(change.moved.map(\.to) == [0])
        #expect(change.reloaded == [0])
        #expect(Set(change.reloadedIDs) == ["a", "c"])
    }

    @Test func noChangeBetweenEqualWindows() {
        #expect(SearchResultsChange.between(entries("abcd"), entries("abcd")) == RowChange())
    }

    @Test(arguments: 0..<4) func randomWindowsChangeAsABatchUpdateReadsIt(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for _ in 0..<500 {
            let pool = "abcdefghijkl".map { String($0) }
            let old = pool.shuffled(using: &random).prefix(Int.random(in: 0...8, using: &random))
            let new = pool.shuffled(using: &random).prefix(Int.random(in: 0...8, using: &random))
            let oldEntries = old.map { Entry(id: $0, version: Data([0])) }
            let newEntries = new.map { Entry(id: $0, version: Data([Bool.random(using: &random) ? 1 : 0])) }
            let change = SearchResultsChange.between(oldEntries, newEntries)
            let applied = try BatchUpdate.apply(
                SearchResultsChange.feedChange(change), to: [Array(old)], new: [Array(new)])
            #expect(applied == [Array(new)], "\(old) -> \(new)")
            let changed = Set(newEntries.filter { $0.version != Data([0]) }.map(\.id)).intersection(old)
            #expect(Set(change.reloadedIDs) == changed)
        }
    }
}
