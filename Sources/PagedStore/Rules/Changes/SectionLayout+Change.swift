import Foundation

extension SectionLayout {
    /// The batch update that turns `old`'s rows into `new`'s, given the change in flat rows.
    ///
    /// Sections are runs of equal keys, so one key can head several sections (A, B, then more A): sections
    /// are paired by the rows they keep, never by key alone. A row that is neither deleted nor moved away
    /// *survives*; survivors keep their order, so the r-th survivor of the previous rows is the r-th new row
    /// that no insertion or move fills. A previous section continues a new one with the same key that shares
    /// its survivors; every other section is deleted or inserted, its rows unlisted. Survivors that change
    /// sections anyway (two runs merge, a run splits) are listed as deleted from their paired section and
    /// inserted into theirs, so each paired section's count adds up as the table checks. Only sections and
    /// changed rows are visited, never every row.
    static func feedChange(_ change: RowChange, from old: SectionLayout, to new: SectionLayout) -> FeedChange {
        guard !change.isFullReload, let survivors = RowSurvivors(change, old: old.rowCount, new: new.rowCount) else {
            // Also a change that does not fit the layouts: better reloaded than a batch the table rejects.
            return FeedChange(reconfiguredIDs: change.reloadedIDs, isFullReload: true)
        }
        let oldRanges = old.sections.map { survivors.ranks(ofOld: $0) }
        let newRanges = new.sections.map { survivors.ranks(ofNew: $0) }
        let pairs = pairedSections(old, oldRanges, new, newRanges)
        var (kept, continued) = (
            [Bool](repeating: false, count: oldRanges.count), [Bool](repeating: false, count: newRanges.count)
        )
        for pair in pairs { (kept[pair.old], continued[pair.new]) = (true, true) }
        var result = FeedChange(
            reconfiguredIDs: change.reloadedIDs, deletedSections: IndexSet(kept.indices.filter { !kept[$0] }),
            insertedSections: IndexSet(continued.indices.filter { !continued[$0] }))
        // Survivors outside the shared ranks leave their paired section or arrive in theirs.
        var strays = Set<Int>()
        for pair in pairs {
            let (s, t) = (oldRanges[pair.old], newRanges[pair.new])
            let shared = s.clamped(to: t)
            // Only the ranks outside the shared ones: a pair's shared survivors may be a million rows.
            for rank in s.ranks(outside: shared) {
                let row = survivors.oldRow(ofRank: rank)
                strays.insert(row)
                result.deletedRows.append(old.indexPath(ofRow: row))
            }
            for rank in t.ranks(outside: shared) {
                result.insertedRows.append(new.indexPath(ofRow: survivors.newRow(ofRank: rank)))
            }
        }
        // Rows of a deleted or inserted section go with it.
        let stays = { (row: Int) in kept[old.section(ofRow: row)] }
        let lands = { (row: Int) in continued[new.section(ofRow: row)] }
        result.deletedRows += change.deleted.filter(stays).map { old.indexPath(ofRow: $0) }
        result.insertedRows += change.inserted.filter(lands).map { new.indexPath(ofRow: $0) }
        // A stray's insertion shows its new content; the table rejects a reload of a deleted row.
        result.reloadedRows = change.reloaded.filter { stays($0) && !strays.contains($0) }
            .map { old.indexPath(ofRow: $0) }
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

    /// The most survivors a change lists as strays; past it, sections are deleted and inserted whole, so
    /// merging two long runs costs no more than the sections.
    static let strayLimit = 1_000

    /// The number of rows.
    fileprivate var rowCount: Int { sections.last.map { $0.firstRow + $0.rowCount } ?? 0 }

    /// The previous and new sections that continue each other, both in increasing order.
    ///
    /// Both sides' survivor ranges tile the same survivors in order, so one merge walk finds them: a pair has
    /// one key and shared survivors, or no survivors at the same rank (a section emptied and refilled in
    /// place stays a row change). Sections without survivors pair only so. The one section of an
    /// unsectioned feed always pairs: both hold every survivor.
    private static func pairedSections(
        _ old: SectionLayout, _ oldRanges: [Range<Int>], _ new: SectionLayout, _ newRanges: [Range<Int>]
    ) -> [(old: Int, new: Int)] {
        var pairs: [(old: Int, new: Int)] = []
        var budget = strayLimit
        var (i, j) = (0, 0)
        while i < oldRanges.count, j < newRanges.count {
            let (s, t) = (oldRanges[i], newRanges[j])
            let shared = s.clamped(to: t).count
            let strays = s.count + t.count - 2 * shared
            if old.sections[i].key == new.sections[j].key, shared > 0 || s == t, strays <= budget {
                pairs.append((i, j))
                budget -= strays
                (i, j) = (i + 1, j + 1)
            } else if (s.upperBound, s.isEmpty ? 1 : 0) <= (t.upperBound, t.isEmpty ? 1 : 0) {
                // `s` shares no survivor with a later new section, which starts at or after `t`'s end (and
                // an empty `s` at that rank comes after a non-empty `t`); at a tie of empties, drop the old one.
                i += 1
            } else {
                j += 1
            }
        }
        return pairs
    }
}

extension Range<Int> {
    /// The ranks of this range below and above `inner`, a range inside it.
    fileprivate func ranks(outside inner: Range<Int>) -> [Int] {
        Array(lowerBound..<inner.lowerBound) + Array(inner.upperBound..<upperBound)
    }
}
