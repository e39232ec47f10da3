import Foundation

/// One section of a feed: a run of consecutive rows that share a section key.
public struct FeedSection: Sendable, Equatable {
    /// The section key of its rows (nil for a feed without sections).
    public var key: String?
    /// The flat row index of its first row.
    public var firstRow: Int
    /// How many rows it has.
    public var rowCount: Int
}

/// The sections of one snapshot, and the mapping from flat rows to index paths.
struct SectionLayout: Sendable, Equatable {
    /// The sections, top first. A feed without section keys has exactly one section (key nil), even
    /// when empty, as a table with one section expects.
    let sections: [FeedSection]

    /// One section holding all `rowCount` rows.
    init(unsectionedRowCount rowCount: Int) {
        sections = [FeedSection(key: nil, firstRow: 0, rowCount: rowCount)]
    }

    /// Sections from runs of equal keys, top first.
    init(runs: [(key: String?, rowCount: Int)]) {
        var first = 0
        sections = runs.map { run in
            defer { first += run.rowCount }
            return FeedSection(key: run.key, firstRow: first, rowCount: run.rowCount)
        }
    }

    /// The index path of flat row `row`.
    func indexPath(ofRow row: Int) -> IndexPath {
        let section = self.section(ofRow: row)
        return IndexPath(section: section, row: row - (sections.isEmpty ? 0 : sections[section].firstRow))
    }

    /// The section holding flat row `row` (binary search).
    func section(ofRow row: Int) -> Int {
        var low = 0
        var high = sections.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if sections[middle].firstRow <= row { low = middle } else { high = middle - 1 }
        }
        return max(low, 0)
    }

    /// The batch update that turns `old`'s rows into `new`'s, given the change in flat rows.
    ///
    /// Rows inside a section that appears or vanishes are covered by the section's insertion or
    /// deletion. If the result would not add up (a row changed its section key in place, say), the
    /// change becomes a full reload rather than a batch the table would reject.
    static func feedChange(_ change: RowChange, from old: SectionLayout, to new: SectionLayout) -> FeedChange {
        if change.isFullReload { return FeedChange(isFullReload: true) }
        let oldKeys = old.sections.map(\.key)
        let newKeys = new.sections.map(\.key)
        let deletedSections = IndexSet(oldKeys.indices.filter { !newKeys.contains(oldKeys[$0]) })
        let insertedSections = IndexSet(newKeys.indices.filter { !oldKeys.contains(newKeys[$0]) })
        var result = FeedChange(deletedSections: deletedSections, insertedSections: insertedSections)
        var counts = old.sections.map(\.rowCount)
        for row in change.deleted {
            let section = old.section(ofRow: row)
            counts[section] -= 1
            if !deletedSections.contains(section) { result.deletedRows.append(old.indexPath(ofRow: row)) }
        }
        var arrivals = [Int](repeating: 0, count: new.sections.count)
        for row in change.inserted {
            let section = new.section(ofRow: row)
            arrivals[section] += 1
            if !insertedSections.contains(section) { result.insertedRows.append(new.indexPath(ofRow: row)) }
        }
        for move in change.moved {
            let from = old.section(ofRow: move.from)
            let to = new.section(ofRow: move.to)
            counts[from] -= 1
            arrivals[to] += 1
            // A move out of a vanishing section or into a new one is that section's deletion or insertion.
            switch (deletedSections.contains(from), insertedSections.contains(to)) {
            case (false, false):
                result.movedRows.append(.init(from: old.indexPath(ofRow: move.from), to: new.indexPath(ofRow: move.to)))
            case (false, true): result.deletedRows.append(old.indexPath(ofRow: move.from))
            case (true, false): result.insertedRows.append(new.indexPath(ofRow: move.to))
            case (true, true): break
            }
        }
        result.reloadedRows = change.reloaded.filter { !deletedSections.contains(old.section(ofRow: $0)) }
            .map { old.indexPath(ofRow: $0) }
        // Check that every surviving section ends with the row count the new layout has.
        for (oldIndex, key) in oldKeys.enumerated() where !deletedSections.contains(oldIndex) {
            guard let newIndex = newKeys.firstIndex(of: key),
                counts[oldIndex] + arrivals[newIndex] == new.sections[newIndex].rowCount
            else { return FeedChange(isFullReload: true) }
        }
        return result
    }
}
