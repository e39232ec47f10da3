/// A refresh's change when the refresh's own transaction then trims the feed to its row limit: one
/// change for both, from the rows before the refresh to the rows after the trim. Pure.
extension RowChange {
    /// This change followed by a trim that cut the bottom `removed` rows of the `newCount` rows it
    /// leads to, as one change of the rows before this change.
    ///
    /// The trimmed rows are the bottom of the merged list. A batch can name them only as old rows
    /// that this change left where they were: it is no full reload and deleted and moved nothing,
    /// none of them is a row it inserted, and they all lie below its deepest reloaded row. Then they
    /// are deleted at their old indices, and the rest of the change stays; anything else is a full
    /// reload.
    /// - Parameters:
    ///   - removed: How many rows the trim cut from the bottom.
    ///   - newCount: The row count this change leads to, before the trim.
    func followed(byTrimming removed: Int, of newCount: Int) -> RowChange {
        guard removed > 0 else { return self }
        let (oldCount, countOverflow) = newCount.subtractingReportingOverflow(rowDelta)
        let (firstTrimmed, trimOverflow) = oldCount.subtractingReportingOverflow(removed)
        let (firstKept, keptOverflow) = newCount.subtractingReportingOverflow(removed)
        guard !countOverflow, !trimOverflow, !keptOverflow, !isFullReload, deleted.isEmpty, moved.isEmpty,
            firstTrimmed >= 0, firstTrimmed > (reloaded.max() ?? -1), firstKept > (inserted.max() ?? -1)
        else { return .fullReload }
        return RowChange(
            deleted: Array(firstTrimmed..<oldCount), inserted: inserted, reloaded: reloaded, reloadedIDs: reloadedIDs)
    }
}
