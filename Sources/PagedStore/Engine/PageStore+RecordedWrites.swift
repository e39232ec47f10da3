/// Recording writes made outside a feed's writer (`pagedb trim` and `pagedb seed`, which cut rows
/// from the bottom or add rows there), so that open lists follow them with the exact change too.
extension PageStore {
    /// Runs `write`, which only removes rows at the bottom of the feed `key` or appends rows there
    /// and changes no other row, and records what it did in the change record. Run it inside the
    /// write's transaction.
    package func recordingRowsChangedAtTheBottom<Result>(
        of key: String, _ write: () throws -> Result
    ) throws -> Result {
        let before = try feed(key: key)
        let result = try write()
        guard let before, let after = try feed(key: key), before.id == after.id, before != after else {
            return result
        }
        var change = RowChange()
        if after.rowCount < before.rowCount {
            change.deleted = Array(max(after.rowCount, 0)..<before.rowCount)
        } else {
            change.inserted = Array(max(before.rowCount, 0)..<after.rowCount)
        }
        try recordChange(from: before, to: after, bytes: change.encoded)
        return result
    }
}
