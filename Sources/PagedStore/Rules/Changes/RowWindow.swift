/// The rows a feed keeps decoded in memory: a contiguous range around the rows on screen.
///
/// Bounded by the policy's window size, so memory does not grow with the feed. Changes that touch
/// the window update it in place from the items already in hand (a next page appended below it, a
/// refresh inserted above it); anything else re-reads it from the cache.
struct RowWindow<Item: Sendable>: Sendable {
    /// The flat row index of the first loaded row.
    var start = 0
    var rows = LoadedRows<Item>()
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    var end: Int { start + rows.count }

    /// Rows appended at the bottom of a feed that had `oldCount` rows: kept if the window reaches the
    /// old bottom and has room.
    mutating func append(_ newRows: LoadedRows<Item>, oldCount: Int) {
        guard end == oldCount, rows.count < capacity else { return }
        rows.append(newRows.count <= capacity - rows.count ? newRows : newRows[0..<(capacity - rows.count)])
    }

    /// Rows inserted at the top: kept if the window starts at the top; otherwise the window shifts down.
    mutating func prepend(_ newRows: LoadedRows<Item>) {
        guard start == 0 else {
            start += newRows.count
            return
        }
        rows.insert(newRows, at: 0)
        if rows.count > capacity { rows.removeLast(rows.count - capacity) }
    }

    /// Replaces the item of a row that is in the window.
    mutating func reload(row: Int, item: Item, key: RowKey) {
        let offset = row - start
        if offset >= 0, offset < rows.count { rows.replace(at: offset, item: item, key: key) }
    }

    /// The window range to read so that `row` is comfortably inside it, or nil when it already is.
    func rangeToLoad(around row: Int, rowCount: Int) -> Range<Int>? {
        let margin = max(capacity / 4, 1)
        let wanted = max(row - margin, 0)..<min(row + margin + 1, rowCount)
        if wanted.isEmpty || (start <= wanted.lowerBound && wanted.upperBound <= end) { return nil }
        let newStart = max(min(row - capacity / 2, rowCount - capacity), 0)
        return newStart..<min(newStart + capacity, rowCount)
    }
}
