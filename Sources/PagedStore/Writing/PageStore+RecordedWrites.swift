/// Recording writes made outside a feed's writer (`pagedb trim` and `pagedb seed`, which cut rows
/// from the bottom or add rows there, and the copies a seed spreads to other feeds), so that open
/// lists follow them with the exact change too.
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

    /// Spreads `copies`, which a write just stored in the feed `key` (a page of `pagedb seed`), to
    /// the other feeds holding the items when the feed shares its items, as every writer of the
    /// engine does (``SharedItemSpread``), and records each of their changes, so that their open
    /// lists follow. Run it inside the write's transaction, after each page.
    package func spreadSharedCopies(_ copies: [EncodedItem], from key: String) throws {
        guard !copies.isEmpty, let writer = try feed(key: key), writer.sharedType != nil else { return }
        for spread in try SharedItemSpread.spread(copies, from: writer, in: self).written {
            try recordChange(from: spread.before, to: spread.after, bytes: spread.change.encoded)
        }
    }
}
