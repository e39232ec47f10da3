import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Sections are runs of equal keys, so a key can head several sections; the batch update
/// must match sections by the rows they keep, and UIKit must accept it.
@Suite(.limit(minutes: 3)) struct SectionChangeTests {
    /// A flat row: its id and section key.
    struct Row: Equatable {
        var id: String
        var key: String?
    }

    /// The layout the engine builds for `rows` (adjacent equal keys form one section), and the ids per section.
    static func layout(_ rows: [Row], sectioned: Bool = true) -> (layout: SectionLayout, ids: [[String]]) {
        guard sectioned else { return (SectionLayout(unsectionedRowCount: rows.count), [rows.map(\.id)]) }
        var runs: [(key: String?, rowCount: Int)] = []
        var ids: [[String]] = []
        for row in rows {
            if let last = runs.last, last.key == row.key {
                runs[runs.count - 1].rowCount += 1
                ids[ids.count - 1].append(row.id)
            } else {
                runs.append((row.key, 1))
                ids.append([row.id])
            }
        }
        return (SectionLayout(runs: runs), ids)
    }

    /// The sectioned change for `change` from `old` to `new`, after checking that UIKit accepts it and that it
    /// turns the previous sections into the new ones.
    @discardableResult
    static func checkedChange(
        _ change: RowChange, from old: [Row], to new: [Row], sectioned: Bool = true
    )
        throws -> FeedChange
    {
        let before = layout(old, sectioned: sectioned)
        let after = layout(new, sectioned: sectioned)
        let feedChange = SectionLayout.feedChange(change, from: before.layout, to: after.layout)
        #expect(try BatchUpdate.apply(feedChange, to: before.ids, new: after.ids) == after.ids)
        return feedChange
    }

    static func rows(_ prefix: String, _ count: Int, _ key: String?) -> [Row] {
        (0..<count).map { Row(id: "\(prefix)\($0)", key: key) }
    }

    @Test func aKeyThatRecursFurtherDownIsAnInsertedSection() throws {
        let old = Self.rows("a", 3, "A") + Self.rows("b", 3, "B")
        let new = old + Self.rows("c", 2, "A")
        let change = try Self.checkedChange(RowChange(inserted: [6, 7]), from: old, to: new)
        #expect(change.insertedSections == IndexSet([2]))
        #expect(change.insertedRows.isEmpty, "rows of an inserted section are not listed")
        #expect(change.deletedSections.isEmpty && !change.isFullReload)
    }

    @Test func rowsPrependedWithTheTopSectionsKeyAreRowsOfThatSection() throws {
        let old = Self.rows("a", 2, "A") + Self.rows("b", 1, "B")
        let change = try Self.checkedChange(
            RowChange(inserted: [0]), from: old, to: [Row(id: "new", key: "A")] + old)
        #expect(change.insertedRows == [IndexPath(section: 0, row: 0)])
        #expect(change.insertedSections.isEmpty && change.deletedSections.isEmpty)
    }

    @Test func rowsPrependedWithANewKeyAreAnInsertedSection() throws {
        let old = Self.rows("a", 2, "A")
        let change = try Self.checkedChange(RowChange(inserted: [0, 1]), from: old, to: Self.rows("c", 2, "C") + old)
        #expect(change.insertedSections == IndexSet([0]))
        #expect(change.insertedRows.isEmpty && change.deletedSections.isEmpty)
    }

    @Test func deletingTheRunBetweenTwoRunsOfOneKeyMergesThem() throws {
        // A, B, A becomes one A section: the storage merges adjacent runs of equal keys. The first A
        // continues; the second A's rows arrive in it.
        let old = Self.rows("a", 2, "A") + [Row(id: "b", key: "B")] + Self.rows("c", 2, "A")
        let change = try Self.checkedChange(
            RowChange(deleted: [2]), from: old, to: Self.rows("a", 2, "A") + Self.rows("c", 2, "A"))
        #expect(change.deletedSections == IndexSet([1, 2]) && change.insertedSections.isEmpty)
        #expect(change.insertedRows == [IndexPath(section: 0, row: 2), IndexPath(section: 0, row: 3)])
        #expect(change.deletedRows.isEmpty)
    }

    @Test func aRowWhoseKeyChangesInPlaceSplitsItsSection() throws {
        let old = Self.rows("a", 3, "A")
        let new = [old[0], Row(id: "a1", key: "B"), old[2]]
        let change = try Self.checkedChange(RowChange(reloaded: [1]), from: old, to: new)
        #expect(change.insertedSections == IndexSet([1, 2]) && change.deletedSections.isEmpty)
        #expect(change.deletedRows == [IndexPath(section: 0, row: 1), IndexPath(section: 0, row: 2)])
        #expect(change.reloadedRows.isEmpty, "the table rejects a reload of a deleted row")
    }

    @Test func mergingLongRunsListsNoMoreThanTheStrayLimit() throws {
        // The long run continues and the short one is deleted: one row listed, not thousands.
        let short = [Row(id: "s", key: "A"), Row(id: "b", key: "B")] + Self.rows("l", 5_000, "A")
        let change = try Self.checkedChange(RowChange(deleted: [1]), from: short, to: [short[0]] + short.dropFirst(2))
        #expect(change.deletedSections == IndexSet([0, 1]) && change.insertedRows == [IndexPath(section: 0, row: 0)])
        // Two long runs: past the limit, the sections are replaced whole instead.
        let long = Self.rows("x", 2_000, "A") + [Row(id: "b", key: "B")] + Self.rows("y", 2_000, "A")
        let merged = try Self.checkedChange(
            RowChange(deleted: [2_000]), from: long, to: long.filter { $0.key == "A" })
        #expect(merged.deletedSections == IndexSet([0, 1, 2]) && merged.insertedSections == IndexSet([0]))
        #expect(merged.insertedRows.count + merged.deletedRows.count <= SectionLayout.strayLimit)
    }

    /// No timed assertion guards the cost: a change that compared rows pairwise across a million
    /// would run past the suite's limit.
    @Test func aMillionRowsInThousandsOfSectionsCostOnlyTheirSections() {
        let old = SectionLayout(runs: (0..<2_000).map { (key: "k\($0)", rowCount: 500) })
        var runs = (0..<2_000).map { (key: Optional("k\($0)"), rowCount: 500) }
        // Row 0 moves to the bottom (its key changed with it) and a row is inserted on top of section 1000.
        runs[0].rowCount -= 1
        runs[1_000].rowCount += 1
        runs[1_999].rowCount += 1
        let new = SectionLayout(runs: runs)
        let change = SectionLayout.feedChange(
            RowChange(inserted: [499_999], moved: [(0, 1_000_000)]), from: old, to: new)
        #expect(change.insertedRows == [IndexPath(section: 1_000, row: 0)])
        #expect(
            change.movedRows == [.init(from: IndexPath(section: 0, row: 0), to: IndexPath(section: 1_999, row: 500))])
        #expect(change.insertedSections.isEmpty && change.deletedSections.isEmpty)
    }

    @Test func anUnsectionedFeedEmptiedAndRefilledKeepsItsOneSection() throws {
        let old = Self.rows("a", 3, nil)
        let emptied = try Self.checkedChange(RowChange(deleted: [0, 1, 2]), from: old, to: [], sectioned: false)
        #expect(emptied.deletedRows.count == 3)
        #expect(emptied.deletedSections.isEmpty && emptied.insertedSections.isEmpty)
        let refilled = try Self.checkedChange(
            RowChange(inserted: [0, 1]), from: [], to: Self.rows("n", 2, nil), sectioned: false)
        #expect(refilled.insertedRows == [IndexPath(section: 0, row: 0), IndexPath(section: 0, row: 1)])
        #expect(refilled.deletedSections.isEmpty && refilled.insertedSections.isEmpty)
    }

    @Test func aSectionEmptiedAndRefilledInPlaceStaysASection() throws {
        let old = Self.rows("a", 1, "A") + Self.rows("b", 2, "B") + Self.rows("c", 1, "C")
        let new = Self.rows("a", 1, "A") + Self.rows("n", 3, "B") + Self.rows("c", 1, "C")
        let change = try Self.checkedChange(RowChange(deleted: [1, 2], inserted: [1, 2, 3]), from: old, to: new)
        #expect(change.deletedSections.isEmpty && change.insertedSections.isEmpty)
        #expect(change.deletedRows.count == 2 && change.insertedRows.count == 3)
    }

    @Test func movesAcrossSections() throws {
        // a0 moves to the bottom of B (its key changed with it): a move between two sections that stay.
        let old = Self.rows("a", 2, "A") + Self.rows("b", 2, "B")
        var new = Self.rows("a", 2, "A").dropFirst() + Self.rows("b", 2, "B")
        new.append(Row(id: "a0", key: "B"))
        let move = try Self.checkedChange(RowChange(moved: [(from: 0, to: 3)]), from: old, to: Array(new))
        #expect(move.movedRows == [.init(from: IndexPath(section: 0, row: 0), to: IndexPath(section: 1, row: 2))])
        // A section's only row moves away: the section is deleted and the row inserted where it lands.
        let single = [Row(id: "a", key: "A"), Row(id: "b", key: "B")]
        let emptied = try Self.checkedChange(
            RowChange(moved: [(from: 0, to: 1)]), from: single, to: [Row(id: "b", key: "B"), Row(id: "a", key: "B")])
        #expect(emptied.deletedSections == IndexSet([0]) && emptied.insertedSections.isEmpty)
        #expect(emptied.insertedRows == [IndexPath(section: 0, row: 1)] && emptied.movedRows.isEmpty)
        // A row moves into a new section: that section's insertion covers it, and its old row is deleted.
        let split = try Self.checkedChange(
            RowChange(moved: [(from: 1, to: 0)]), from: Self.rows("a", 2, "A"),
            to: [Row(id: "a1", key: "Z"), Row(id: "a0", key: "A")])
        #expect(split.insertedSections == IndexSet([0]))
        #expect(split.deletedRows == [IndexPath(section: 0, row: 1)] && split.movedRows.isEmpty)
    }

    @Test func aChangeThatDoesNotFitTheLayoutsIsAFullReload() {
        let layout = SectionLayout(unsectionedRowCount: 2)
        #expect(SectionLayout.feedChange(RowChange(deleted: [5]), from: layout, to: layout).isFullReload)
        #expect(SectionLayout.feedChange(RowChange(deleted: [0, 0]), from: layout, to: layout).isFullReload)
        #expect(SectionLayout.feedChange(RowChange(inserted: [0]), from: layout, to: layout).isFullReload)
    }

    @Test func theApplierRejectsWhatUIKitRejects() throws {
        let old = [["a0", "a1"], ["b0"]]
        let new = [["a0", "a1"], ["b0"], ["c0"]]
        /// Checks that the applier throws, saying `reason`.
        func rejects(_ change: FeedChange, _ reason: String, new: [[String]] = new) {
            let error = #expect(throws: BatchUpdate.Mismatch.self) {
                try BatchUpdate.apply(change, to: old, new: new)
            }
            #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
        }
        let path = { (section: Int, row: Int) in IndexPath(section: section, row: row) }
        rejects(FeedChange(insertedRows: [path(2, 0)]), "invalid number of sections")
        rejects(FeedChange(insertedRows: [path(2, 0)], insertedSections: [2]), "is being inserted")
        rejects(FeedChange(insertedSections: [3]), "insertSections(3)")
        rejects(
            FeedChange(insertedSections: [2]), "invalid number of rows in section 0", new: [["a0"], ["b0"], ["c0"]])
        rejects(FeedChange(deletedRows: [path(0, 2)]), "no such row in the previous snapshot", new: [["a0"], ["b0"]])
        rejects(
            FeedChange(deletedRows: [path(1, 0)], deletedSections: [1]), "is being deleted",
            new: [["a0", "a1"]])
        rejects(FeedChange(deletedRows: [path(0, 0), path(0, 0)]), "deleted or moved twice", new: [["a1"], ["b0"]])
        rejects(
            FeedChange(deletedRows: [path(0, 0)], insertedRows: [path(0, 0)], reloadedRows: [path(0, 0)]),
            "reloadRows [0, 0]", new: [["a0", "a1"], ["b0"]])
        rejects(
            FeedChange(movedRows: [.init(from: path(1, 0), to: path(0, 0))], deletedSections: [1]),
            "moveRow from [1, 0]: its section 1 is being deleted", new: [["b0", "a0", "a1"]])
        #expect(
            try BatchUpdate.apply(
                FeedChange(movedRows: [.init(from: path(1, 0), to: path(0, 0))], insertedSections: [2]), to: old,
                new: [["b0", "a0", "a1"], [], ["c0"]]) == [["b0", "a0", "a1"], [], ["c0"]])
        #expect(try BatchUpdate.apply(FeedChange(isFullReload: true), to: old, new: new) == new)
    }

    /// Random sections and random flat changes: the batch always applies and yields the new sections.
    @Test func randomChangesApplyAsUIKitReadsThem() throws {
        var random = SplitMix64(seed: 10_07)
        let cases = 4_000
        var (fullReloads, replaced) = (0, 0)
        for index in 0..<cases {
            let sectioned = Int.random(in: 0..<5, using: &random) > 0
            let keys = ["A", "B", "C"].prefix(Int.random(in: 2...3, using: &random))
            let key = { (random: inout SplitMix64) -> String? in sectioned ? keys.randomElement(using: &random) : nil }
            let size = Int.random(in: 0...(Int.random(in: 0..<4, using: &random) == 0 ? 60 : 12), using: &random)
            let old = (0..<size).map { Row(id: "o\($0)", key: key(&random)) }
            let (change, new) = Self.randomChange(of: old, key: key, using: &random)
            let before = Self.layout(old, sectioned: sectioned)
            let after = Self.layout(new, sectioned: sectioned)
            let feedChange = SectionLayout.feedChange(change, from: before.layout, to: after.layout)
            do {
                let applied = try BatchUpdate.apply(feedChange, to: before.ids, new: after.ids)
                guard applied == after.ids else {
                    Issue.record(
                        "case \(index): \(before.ids) → \(after.ids) by \(change): \(feedChange): got \(applied)")
                    return
                }
            } catch {
                Issue.record("case \(index): \(before.ids) → \(after.ids) by \(change): \(feedChange): \(error)")
                return
            }
            if feedChange.isFullReload { fullReloads += 1 }
            if !before.ids.isEmpty, feedChange.deletedSections.count == before.ids.count { replaced += 1 }
        }
        print("random section changes: \(fullReloads) of \(cases) full reloads, \(replaced) replaced every section")
        #expect(fullReloads * 5 < cases, "fewer than 20% full reloads")
    }

    /// A random flat change of `old`: deletions, moves (the row sometimes changing its key), insertions with
    /// random keys and reloads (sometimes changing the key in place), and the rows it leads to.
    static func randomChange(
        of old: [Row], key: (inout SplitMix64) -> String?, using random: inout SplitMix64
    ) -> (RowChange, [Row]) {
        var change = RowChange()
        var survivors: [(row: Int, value: Row)] = []
        for (row, value) in old.enumerated() {
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<3: change.deleted.append(row)
            case 3..<5: change.moved.append((from: row, to: -1))
            default: survivors.append((row, value))
            }
        }
        for index in survivors.indices where Int.random(in: 0..<10, using: &random) == 0 {
            change.reloaded.append(survivors[index].row)
            if Bool.random(using: &random) { survivors[index].value.key = key(&random) }
        }
        let insertions = Int.random(in: 0...4, using: &random)
        let count = survivors.count + insertions + change.moved.count
        // Which new rows insertions and moves fill; survivors fill the rest in order.
        var arrivals = Array(0..<count).shuffled(using: &random).prefix(insertions + change.moved.count)
        var new = [Row?](repeating: nil, count: count)
        for index in change.moved.indices {
            guard let to = arrivals.popLast() else { break }
            change.moved[index].to = to
            var row = old[change.moved[index].from]
            if Bool.random(using: &random) { row.key = key(&random) }
            new[to] = row
        }
        for (index, to) in arrivals.enumerated() {
            change.inserted.append(to)
            new[to] = Row(id: "n\(index)", key: key(&random))
        }
        var rest = survivors.makeIterator()
        let rows = new.map { $0 ?? rest.next()?.value ?? Row(id: "missing", key: nil) }
        change.deleted.shuffle(using: &random)
        change.inserted.shuffle(using: &random)
        return (change, rows)
    }
}
