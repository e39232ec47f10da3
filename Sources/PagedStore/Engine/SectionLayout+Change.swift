import Foundation

extension SectionLayout {
    /// The batch update that turns `old`'s rows into `new`'s, given the change in flat rows.
    ///
    /// Sections are runs of equal keys, so one key can head several sections (A, B, then more A): sections
    /// are matched by the rows they keep, never by key alone. A row that is neither deleted nor moved away
    /// *survives*; survivors keep their order, so the r-th survivor of the previous rows is the r-th new row
    /// that no insertion or move fills. A previous section continues a new section when both hold the same
    /// survivors and the same key; every other previous section is deleted and every other new section
    /// inserted, with their rows unlisted. Then each continued section's survivors fill exactly the new
    /// section's free slots, which is what the table checks. Only sections and changed rows are visited.
    static func feedChange(_ change: RowChange, from old: SectionLayout, to new: SectionLayout) -> FeedChange {
        guard !change.isFullReload, let survivors = Survivors(change, old: old.rowCount, new: new.rowCount) else {
            // Also a change that does not fit the layouts: better reloaded than a batch the table rejects.
            return FeedChange(isFullReload: true)
        }
        let targets = matchedSections(old, new, survivors)
        var continued = [Bool](repeating: false, count: new.sections.count)
        for target in targets { if let target { continued[target] = true } }
        var result = FeedChange(
            deletedSections: IndexSet(targets.indices.filter { targets[$0] == nil }),
            insertedSections: IndexSet(continued.indices.filter { !continued[$0] }))
        // Rows of a deleted or inserted section go with it.
        let stays = { (row: Int) in targets[old.section(ofRow: row)] != nil }
        let lands = { (row: Int) in continued[new.section(ofRow: row)] }
        result.deletedRows = change.deleted.filter(stays).map { old.indexPath(ofRow: $0) }
        result.insertedRows = change.inserted.filter(lands).map { new.indexPath(ofRow: $0) }
        result.reloadedRows = change.reloaded.filter(stays).map { old.indexPath(ofRow: $0) }
        for move in change.moved {
            switch (stays(move.from), lands(move.to)) {
            case (true, true):
                result.movedRows.append(.init(from: old.indexPath(ofRow: move.from), to: new.indexPath(ofRow: move.to)))
            case (true, false): result.deletedRows.append(old.indexPath(ofRow: move.from))
            case (false, true): result.insertedRows.append(new.indexPath(ofRow: move.to))
            case (false, false): break
            }
        }
        return result
    }

    /// The number of rows.
    fileprivate var rowCount: Int { sections.last.map { $0.firstRow + $0.rowCount } ?? 0 }

    /// For each previous section, the new section it continues, or nil when it is deleted.
    ///
    /// Both sides' sections hold consecutive survivor ranges that tile the same survivors, so one merge walk
    /// pairs equal ranges in order. Sections without survivors (all rows deleted, or all rows new) sit at a
    /// single rank; equal keys at the same rank pair too, so emptying a section and refilling it in place
    /// stays a row change. The one section of an unsectioned feed always pairs: both hold every survivor.
    private static func matchedSections(_ old: SectionLayout, _ new: SectionLayout, _ survivors: Survivors) -> [Int?] {
        let oldRanges = old.sections.map { survivors.ranks(ofOld: $0) }
        let newRanges = new.sections.map { survivors.ranks(ofNew: $0) }
        var targets = [Int?](repeating: nil, count: old.sections.count)
        var (i, j) = (0, 0)
        while i < oldRanges.count, j < newRanges.count {
            let (s, t) = (oldRanges[i], newRanges[j])
            if s == t, old.sections[i].key == new.sections[j].key {
                targets[i] = j
                (i, j) = (i + 1, j + 1)
            } else if (s.upperBound, s.isEmpty ? 1 : 0) <= (t.upperBound, t.isEmpty ? 1 : 0) {
                // `s` can pair with nothing from `t` on (later new ranges end later, or hold survivors
                // while `s` holds none); at a tie between two empty ranges, drop the old one.
                i += 1
            } else {
                j += 1
            }
        }
        return targets
    }
}

/// Where the rows that stay land, in survivor ranks: the r-th row that is neither deleted nor moved away
/// is the r-th new row that no insertion or move fills.
private struct Survivors {
    /// Previous rows that leave their place, ascending: deletions and move sources.
    let gone: [Int]
    /// New rows that other rows fill, ascending: insertions and move destinations.
    let taken: [Int]

    /// Nil when the change names a row twice or out of range, or leaves different survivors on each side.
    init?(_ change: RowChange, old oldRowCount: Int, new newRowCount: Int) {
        gone = (change.deleted + change.moved.map(\.from)).sorted()
        taken = (change.inserted + change.moved.map(\.to)).sorted()
        guard Self.areDistinct(gone, below: oldRowCount), Self.areDistinct(taken, below: newRowCount),
            oldRowCount - gone.count == newRowCount - taken.count,
            change.reloaded.allSatisfy({ 0 <= $0 && $0 < oldRowCount })
        else { return nil }
    }

    /// The survivor ranks a previous section holds.
    func ranks(ofOld section: FeedSection) -> Range<Int> {
        Self.rank(section.firstRow, skipping: gone)..<Self.rank(section.firstRow + section.rowCount, skipping: gone)
    }

    /// The survivor ranks that land in a new section.
    func ranks(ofNew section: FeedSection) -> Range<Int> {
        Self.rank(section.firstRow, skipping: taken)..<Self.rank(section.firstRow + section.rowCount, skipping: taken)
    }

    /// How many survivors come before `row`: the rows before it that are not in `rows` (binary search).
    private static func rank(_ row: Int, skipping rows: [Int]) -> Int {
        var (low, high) = (0, rows.count)
        while low < high {
            let middle = low + (high - low) / 2
            if rows[middle] < row { low = middle + 1 } else { high = middle }
        }
        return row - low
    }

    private static func areDistinct(_ rows: [Int], below count: Int) -> Bool {
        guard let first = rows.first, let last = rows.last else { return true }
        return first >= 0 && last < count && zip(rows, rows.dropFirst()).allSatisfy { $0 < $1 }
    }
}
