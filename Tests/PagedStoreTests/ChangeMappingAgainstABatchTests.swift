import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A row of the dense simulation: its id and a version that a reload bumps.
private struct SimRow: Equatable { var id: String; var version: Int }

/// The dense reference: a batch update's own checks, one entry per row, and a batch applied to an
/// array of rows.
private enum Dense {
    /// Whether a batch update accepts `change` from `oldCount` to `newCount` rows.
    static func accepts(_ change: RowChange, oldCount: Int, newCount: Int) -> Bool {
        guard !change.isFullReload, oldCount >= 0, newCount >= 0, oldCount < 10_000, newCount < 10_000 else {
            return false
        }
        var leaving = [Bool](repeating: false, count: oldCount)
        var arriving = [Bool](repeating: false, count: newCount)
        var changed = leaving
        func leave(_ row: Int) -> Bool {
            guard leaving.indices.contains(row), !leaving[row] else { return false }
            leaving[row] = true
            return true
        }
        func arrive(_ row: Int) -> Bool {
            guard arriving.indices.contains(row), !arriving[row] else { return false }
            arriving[row] = true
            return true
        }
        for row in change.deleted { guard leave(row) else { return false } }
        for row in change.inserted { guard arrive(row) else { return false } }
        for move in change.moved { guard leave(move.from), arrive(move.to) else { return false } }
        for row in change.reloaded {
            guard changed.indices.contains(row), !leaving[row], !changed[row] else { return false }
            changed[row] = true
        }
        return oldCount - leaving.filter { $0 }.count == newCount - arriving.filter { $0 }.count
    }

    /// `rows` after the batch `change`; inserted rows are new ids, reloaded rows get a new version.
    static func apply(_ change: RowChange, to rows: [SimRow], newCount: Int, fresh: inout Int) -> [SimRow]? {
        guard accepts(change, oldCount: rows.count, newCount: newCount) else { return nil }
        var result = [SimRow?](repeating: nil, count: newCount)
        var gone = Set(change.deleted)
        for move in change.moved {
            gone.insert(move.from)
            result[move.to] = rows[move.from]
        }
        for row in change.inserted {
            fresh += 1
            result[row] = SimRow(id: "new\(fresh)", version: 0)
        }
        let reloaded = Set(change.reloaded)
        var slot = 0
        for (old, row) in rows.enumerated() where !gone.contains(old) {
            while result[slot] != nil { slot += 1 }
            var row = row
            if reloaded.contains(old) { row.version += 1 }
            result[slot] = row
        }
        return result.compactMap { $0 }
    }

    /// A random change that fits `oldCount` rows, and the row count after it.
    static func randomChange(oldCount: Int, using rng: inout some RandomNumberGenerator) -> (RowChange, Int) {
        let goneCount = oldCount == 0 ? 0 : Int.random(in: 0...min(oldCount, 4), using: &rng)
        let gone = Array((0..<oldCount).shuffled(using: &rng).prefix(goneCount))
        let moveCount = goneCount == 0 ? 0 : Int.random(in: 0...goneCount, using: &rng)
        let insertCount = Int.random(in: 0...3, using: &rng)
        let newCount = oldCount - goneCount + moveCount + insertCount
        let taken = Array((0..<newCount).shuffled(using: &rng).prefix(moveCount + insertCount))
        var change = RowChange()
        change.moved = (0..<moveCount).map { (from: gone[$0], to: taken[$0]) }
        change.deleted = Array(gone[moveCount...]).sorted()
        change.inserted = Array(taken[moveCount...]).sorted()
        let staying = (0..<oldCount).filter { !gone.contains($0) }
        change.reloaded = staying.filter { _ in Int.random(in: 0..<4, using: &rng) == 0 }
        return (change, newCount)
    }
}

/// The sparse mapping of a change against a dense model of a batch update: it refuses exactly the
/// changes a batch would, maps every row where the batch puts it, composes two changes into the
/// rows of applying both, and never traps on counts a file can hold.
@Suite(.limit(minutes: 3), .plainRunOnly) struct ChangeMappingAgainstABatchTests {
    @Test func composingTwoChangesGivesTheRowsOfApplyingThemOneAfterTheOther() throws {
        var rng = SplitMix64(seed: 42)
        var failures = 0
        for trial in 0..<2_000 {
            let oldCount = Int.random(in: 0...9, using: &rng)
            let rows0 = (0..<oldCount).map { SimRow(id: "r\($0)", version: 0) }
            let (c1, middleCount) = Dense.randomChange(oldCount: oldCount, using: &rng)
            let (c2, newCount) = Dense.randomChange(oldCount: middleCount, using: &rng)
            var fresh = 0
            let rows1 = try #require(Dense.apply(c1, to: rows0, newCount: middleCount, fresh: &fresh))
            let rows2 = try #require(Dense.apply(c2, to: rows1, newCount: newCount, fresh: &fresh))
            guard let composed = c1.followed(by: c2, oldCount: oldCount, middleCount: middleCount, newCount: newCount)
            else {
                failures += 1
                Issue.record("trial \(trial): two fitting changes did not compose: \(c1) then \(c2)")
                continue
            }
            #expect(Dense.accepts(composed, oldCount: oldCount, newCount: newCount), "trial \(trial)")
            // Apply the composed change with markers for its insertions, then compare with two steps.
            var unused = 0
            let viaComposed = try #require(Dense.apply(composed, to: rows0, newCount: newCount, fresh: &unused))
            let inserted = Set(composed.inserted)
            let reloadedNew = Set(
                composed.reloaded.compactMap { old in
                    RowChange.Mapping(composed, oldCount: oldCount, newCount: newCount)?.destination(ofOld: old)
                })
            for slot in 0..<newCount {
                if inserted.contains(slot) {
                    // A composed insertion shows a row that is new or whose content changed.
                    let wasThere = rows0.contains(rows2[slot])
                    if wasThere { failures += 1 }
                    #expect(!wasThere, "trial \(trial): \(c1) then \(c2) = \(composed) inserts an unchanged row")
                } else {
                    let sameID = viaComposed[slot].id == rows2[slot].id
                    let sameContent = reloadedNew.contains(slot) || viaComposed[slot].version == rows2[slot].version
                    if !(sameID && sameContent) { failures += 1 }
                    #expect(sameID && sameContent, "trial \(trial): \(c1) then \(c2) = \(composed) at \(slot)")
                }
            }
            if failures > 5 { break }
        }
    }

    @Test func aChangeIsRefusedExactlyWhenABatchUpdateWouldRejectIt() {
        var rng = SplitMix64(seed: 7)
        var mismatches = 0
        for trial in 0..<5_000 {
            let oldCount = Int.random(in: -1...6, using: &rng)
            let newCount = Int.random(in: -1...6, using: &rng)
            func index() -> Int { Int.random(in: -1...6, using: &rng) }
            func some() -> [Int] { (0..<Int.random(in: 0...3, using: &rng)).map { _ in index() } }
            var change = RowChange()
            change.deleted = some()
            change.inserted = some()
            change.reloaded = some()
            change.moved = (0..<Int.random(in: 0...2, using: &rng)).map { _ in (from: index(), to: index()) }
            let dense = Dense.accepts(change, oldCount: oldCount, newCount: newCount)
            let mapping = RowChange.Mapping(change, oldCount: oldCount, newCount: newCount)
            if (mapping != nil) != dense {
                mismatches += 1
                Issue.record(
                    "trial \(trial): \(change) \(oldCount)->\(newCount): dense \(dense), sparse \(mapping != nil)")
            }
            if let mapping, dense {
                var fresh = 0
                let rows = (0..<oldCount).map { SimRow(id: "r\($0)", version: 0) }
                let after = Dense.apply(change, to: rows, newCount: newCount, fresh: &fresh)!
                for old in 0..<oldCount {
                    let expected = after.firstIndex { $0.id == "r\(old)" }
                    if mapping.destination(ofOld: old) != expected {
                        mismatches += 1
                        Issue.record("trial \(trial): \(change): row \(old) goes to \(String(describing: expected))")
                    }
                }
                for new in 0..<newCount {
                    let expected = after[new].id.hasPrefix("r") ? Int(after[new].id.dropFirst()) : nil
                    if mapping.source(ofNew: new) != expected {
                        mismatches += 1
                        Issue.record(
                            "trial \(trial): \(change): new row \(new) comes from \(String(describing: expected))")
                    }
                }
            }
            if mismatches > 5 { break }
        }
    }

    @Test func extremeCountsNeverTrap() {
        let big = Int.max
        #expect(RowChange.Mapping(RowChange(deleted: [big - 1]), oldCount: big, newCount: big - 1) != nil)
        #expect(RowChange.Mapping(RowChange(deleted: [0]), oldCount: big, newCount: big) == nil)
        #expect(RowChange.Mapping(RowChange(inserted: [0]), oldCount: Int.min, newCount: Int.min + 1) == nil)
        #expect(RowChange.Mapping(RowChange(inserted: [0]), oldCount: -1, newCount: 0) == nil)
        #expect(RowChange.Mapping(RowChange(reloaded: [Int.max]), oldCount: big, newCount: big) == nil)
        #expect(RowChange.Mapping(RowChange(reloaded: [Int.min]), oldCount: big, newCount: big) == nil)
        let mapping = RowChange.Mapping(
            RowChange(deleted: [5], moved: [(from: big - 1, to: 0)]), oldCount: big, newCount: big - 1)
        #expect(mapping?.destination(ofOld: 0) == 1)
        #expect(mapping?.destination(ofOld: big - 2) == big - 2)
        #expect(mapping?.source(ofNew: big - 2) == big - 2)
        let composed = RowChange(inserted: [0]).followed(
            by: RowChange(deleted: [big - 1]), oldCount: big - 1, middleCount: big, newCount: big - 1)
        #expect(composed == RowChange(deleted: [big - 2], inserted: [0]))
        #expect(
            RowChange(inserted: [0]).followed(
                by: RowChange(deleted: [0]), oldCount: Int.min, middleCount: Int.min + 1, newCount: Int.min) == nil)
        let shown = RowChange.ShownRows(ids: ["a"], start: big - 1, count: big)
        #expect(RowChange(reloaded: [big - 1]).agrees(from: shown, to: shown))
    }

    @Test func aMoveOntoAnInsertedSlotOrAReloadOfAMovedRowIsRefused() {
        #expect(RowChange.Mapping(RowChange(inserted: [1], moved: [(from: 0, to: 1)]), oldCount: 2, newCount: 3) == nil)
        #expect(RowChange.Mapping(RowChange(reloaded: [0], moved: [(from: 0, to: 1)]), oldCount: 2, newCount: 2) == nil)
        #expect(RowChange.Mapping(RowChange(deleted: [0], moved: [(from: 0, to: 1)]), oldCount: 2, newCount: 2) == nil)
        #expect(
            RowChange.Mapping(RowChange(moved: [(from: 0, to: 1), (from: 1, to: 1)]), oldCount: 2, newCount: 2) == nil)
        #expect(RowChange.Mapping(RowChange(reloaded: [1, 1]), oldCount: 2, newCount: 2) == nil)
        #expect(RowChange.Mapping(RowChange(), oldCount: 0, newCount: 0) != nil)
        #expect(RowChange.Mapping(RowChange(), oldCount: 0, newCount: 1) == nil)
    }
}
