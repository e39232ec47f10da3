import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Two changes as one: a list that missed two writes takes them as one batch, which must turn its
/// rows into the rows after both, and reload every row whose item either write changed.
@Suite(.limit(minutes: 3)) struct RowChangeComposingTests {
    /// A row: its id and the version of its item.
    struct Row: Hashable {
        var id: String
        var version: Int
    }

    /// A random valid change of `old`: some rows deleted, some moved, some reloaded (their version
    /// bumped), some inserted; and the rows it leads to.
    static func randomStep(of old: [Row], step: Int, using random: inout SplitMix64) -> (RowChange, [Row]) {
        var change = RowChange()
        var survivors: [(old: Int, row: Row)] = []
        var movers: [(old: Int, row: Row)] = []
        for (index, row) in old.enumerated() {
            switch Int.random(in: 0..<10, using: &random) {
            case 0: change.deleted.append(index)
            case 1: movers.append((index, row))
            case 2:
                change.reloaded.append(index)
                change.reloadedIDs.append(row.id)
                survivors.append((index, Row(id: row.id, version: row.version + 1)))
            default: survivors.append((index, row))
            }
        }
        // Rows that stay keep their order; movers and new rows go anywhere among them.
        var new: [(old: Int?, row: Row)] = survivors.map { ($0.old, $0.row) }
        for mover in movers { new.insert((mover.old, mover.row), at: Int.random(in: 0...new.count, using: &random)) }
        for fresh in 0..<Int.random(in: 0...3, using: &random) {
            new.insert(
                (nil, Row(id: "n\(step)-\(fresh)", version: 0)), at: Int.random(in: 0...new.count, using: &random))
        }
        let moverRows = Set(movers.map(\.old))
        for (index, entry) in new.enumerated() {
            if let from = entry.old {
                if moverRows.contains(from) { change.moved.append((from: from, to: index)) }
            } else {
                change.inserted.append(index)
            }
        }
        change.moved.sort { $0.from < $1.from }
        return (change, new.map(\.row))
    }

    /// Applies `change` to `old` as a batch does, with the items of `new` for inserted and reloaded rows.
    static func apply(_ change: RowChange, to old: [Row], new: [Row]) throws -> [Row] {
        let batch = SectionLayout.feedChange(
            change, from: SectionLayout(unsectionedRowCount: old.count),
            to: SectionLayout(unsectionedRowCount: new.count))
        #expect(!batch.isFullReload, "the change fits its counts")
        let ids = try BatchUpdate.apply(batch, to: old.map(\.id), new: new.map(\.id))
        // A row the batch neither inserts nor reloads keeps the item it had.
        let reloaded = Set(change.reloaded.map { old[$0].id })
        let inserted = Set(change.inserted.map { new[$0].id })
        let before = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.compactMap { id in reloaded.contains(id) || inserted.contains(id) ? after[id] : before[id] }
    }

    @Test(arguments: 0..<200) func twoRandomChangesComposeIntoOneBatchOfTheRowsAfterBoth(seed: UInt64) throws {
        var random = SplitMix64(seed: 0xC0_0000 + seed)
        let old = (0..<Int.random(in: 0...12, using: &random)).map { Row(id: "o\($0)", version: 0) }
        let (first, middle) = Self.randomStep(of: old, step: 1, using: &random)
        let (second, new) = Self.randomStep(of: middle, step: 2, using: &random)
        #expect(try Self.apply(first, to: old, new: middle) == middle, "the generator makes valid changes")
        let composed = try #require(
            first.followed(by: second, oldCount: old.count, middleCount: middle.count, newCount: new.count))
        #expect(try Self.apply(composed, to: old, new: new) == new)
    }

    @Test func aRowInsertedThenDeletedIsNeitherInsertedNorDeleted() throws {
        let first = RowChange(inserted: [0])
        let second = RowChange(deleted: [0])
        let composed = try #require(first.followed(by: second, oldCount: 2, middleCount: 3, newCount: 2))
        #expect(composed == RowChange())
    }

    @Test func aRowReloadedThenMovedIsDeletedAndInserted() throws {
        // a b c → a b' c → b' a c: a batch cannot reload a row that moves.
        let first = RowChange(reloaded: [1], reloadedIDs: ["b"])
        let second = RowChange(moved: [(from: 1, to: 0)])
        let composed = try #require(first.followed(by: second, oldCount: 3, middleCount: 3, newCount: 3))
        #expect(composed.deleted == [1] && composed.inserted == [0] && composed.moved.isEmpty)
        #expect(composed.reloadedIDs == ["b"])
    }

    @Test func rowsFarBelowTheChangedOnesMoveWithThem() throws {
        // Two writes deep in a long feed: the rows between them shift as a batch reads it.
        let rows = 10_000_000
        let first = RowChange(deleted: [5_000_000], moved: [(from: 9_999_999, to: 0)])
        let second = RowChange(inserted: [7_000_000], reloaded: [8_000_000], reloadedIDs: ["r"])
        let composed = try #require(
            first.followed(by: second, oldCount: rows, middleCount: rows - 1, newCount: rows))
        #expect(composed.deleted == [5_000_000])
        #expect(composed.moved.map(\.from) == [9_999_999] && composed.moved.map(\.to) == [0])
        #expect(composed.inserted == [7_000_000])
        // Row 8,000,000 after the first write was row 8,000,000 before it: one row above it left,
        // and one came on top.
        #expect(composed.reloaded == [8_000_000])
    }

    @Test func aFullReloadInEitherIsAFullReload() throws {
        #expect(RowChange.fullReload.followed(by: RowChange(), oldCount: 1, middleCount: 1, newCount: 1) == .fullReload)
        #expect(RowChange().followed(by: .fullReload, oldCount: 1, middleCount: 1, newCount: 1) == .fullReload)
    }

    @Test func aChangeThatDoesNotFitItsCountsComposesToNothing() {
        // Deleting row 5 of a list of 3, or counts that do not add up: a record that lies.
        #expect(RowChange(deleted: [5]).followed(by: RowChange(), oldCount: 3, middleCount: 2, newCount: 2) == nil)
        #expect(RowChange(inserted: [0]).followed(by: RowChange(), oldCount: 3, middleCount: 3, newCount: 3) == nil)
        #expect(RowChange(deleted: [0, 0]).followed(by: RowChange(), oldCount: 3, middleCount: 1, newCount: 1) == nil)
    }
}
