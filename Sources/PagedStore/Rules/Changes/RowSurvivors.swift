import Foundation

/// Where the rows a change keeps in place land, in survivor ranks: the r-th row that is neither
/// deleted nor moved away is the r-th new row that no insertion or move fills. Pure.
///
/// It holds only the rows the change names, sorted, and answers by binary search, so a change of a
/// few rows costs the same in a feed of ten rows or of a million.
struct RowSurvivors: Sendable {
    /// Previous rows that leave their place, ascending: deletions and move sources.
    let gone: [Int]
    /// New rows that other rows fill, ascending: insertions and move destinations.
    let taken: [Int]

    /// Nil when the change names a row twice or out of range, or leaves different survivors on each side.
    init?(_ change: RowChange, old oldRowCount: Int, new newRowCount: Int) {
        guard oldRowCount >= 0, newRowCount >= 0 else { return nil }
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

    /// The survivor rank of previous row `row`, one that neither leaves nor moves.
    func rank(ofOld row: Int) -> Int { Self.rank(row, skipping: gone) }

    /// The survivor rank of new row `row`, one that no insertion or move fills.
    func rank(ofNew row: Int) -> Int { Self.rank(row, skipping: taken) }

    /// Whether previous row `row` leaves its place: deleted or moved away.
    func leaves(_ row: Int) -> Bool {
        let before = row - Self.rank(row, skipping: gone)
        return gone.indices.contains(before) && gone[before] == row
    }

    /// The previous row of the survivor of rank `rank`.
    func oldRow(ofRank rank: Int) -> Int { Self.row(ofRank: rank, skipping: gone) }

    /// The new row where the survivor of rank `rank` lands.
    func newRow(ofRank rank: Int) -> Int { Self.row(ofRank: rank, skipping: taken) }

    /// The `rank`-th row not in `rows`: `rank` plus the rows of `rows` before it, which are those `i` with
    /// `rows[i] - i <= rank` (that difference counts the other rows before `rows[i]` and never decreases).
    private static func row(ofRank rank: Int, skipping rows: [Int]) -> Int {
        var (low, high) = (0, rows.count)
        while low < high {
            let middle = low + (high - low) / 2
            if rows[middle] - middle <= rank { low = middle + 1 } else { high = middle }
        }
        return rank + low
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
