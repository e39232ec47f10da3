import Foundation

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
}
