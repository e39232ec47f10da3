/// Reading the way from one state of a feed to another out of the file's change record.
extension ChangeChain {
    /// The one change from `held` to `file` that the change record holds, or nil when it does not
    /// hold it whole (see ``change(from:to:through:)``). Run it in the transaction that read `file`.
    static func change(from held: FeedRecord, to file: FeedRecord, in store: PageStore) throws -> RowChange? {
        guard held.id == file.id, held.changeCount != file.changeCount else { return nil }
        let links = try store.recordedChanges(of: file, since: held.changeCount).map { stored in
            Link(
                fromCount: stored.fromCount, toCount: stored.toCount, fromRows: stored.fromRows,
                toRows: stored.toRows,
                change: RowChange(encoded: stored.bytes, rowLimit: max(stored.fromRows, stored.toRows)))
        }
        return change(from: held, to: file, through: links)
    }
}
