import Foundation

extension RowWindow {
    /// Reads, in the caller's transaction, the rows a window of this capacity holds for `record`
    /// when it starts at `start` (moved up when fewer rows remain below it).
    /// - Returns: The rows as stored, and the row the window starts at.
    func read(
        of record: FeedRecord, from start: Int, in store: PageStore
    ) throws -> (stored: [StoredItem], start: Int) {
        let first = max(min(start, record.rowCount - capacity), 0)
        return (try store.window(of: record, from: first == 0 ? .top : .row(first), limit: capacity), first)
    }
}
