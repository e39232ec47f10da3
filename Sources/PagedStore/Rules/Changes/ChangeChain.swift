/// What a list that holds one state of its feed takes to reach the file's: the recorded writes in
/// between, composed into one exact change, or nothing when the record does not cover them. Pure.
///
/// The record covers the way from the held row to the file's when its writes chain: the first
/// starts at the held change count and row count, each next one starts where the one before ended,
/// and the last ends at the file's. A write the record lacks (compacted away, or made by a writer
/// that does not record: `sqlite3`, an older version of the app), a damaged record, or a feed that
/// was deleted and made again breaks the chain, and the list takes the feed's rows whole.
enum ChangeChain {
    /// One recorded write: the change counts and row counts it went between, and its change (nil
    /// when its bytes do not decode).
    struct Link: Equatable {
        var fromCount: Int64
        var toCount: Int64
        var fromRows: Int
        var toRows: Int
        var change: RowChange?
    }

    /// The one change that takes the rows of `held` to those of `file` through `links` (the record's
    /// writes of the feed from the held change count on, in order), or nil when they do not chain.
    static func change(from held: FeedRecord, to file: FeedRecord, through links: [Link]) -> RowChange? {
        guard held.id == file.id, let first = links.first, first.fromCount == held.changeCount,
            first.fromRows == held.rowCount
        else { return nil }
        var composed: RowChange?
        var (count, rows) = (held.changeCount, held.rowCount)
        for link in links {
            guard link.fromCount == count, link.fromRows == rows, let change = link.change else { return nil }
            if let sofar = composed {
                guard
                    let next = sofar.followed(
                        by: change, oldCount: held.rowCount, middleCount: rows, newCount: link.toRows)
                else { return nil }
                composed = next
            } else {
                guard RowChange.Mapping(change, oldCount: rows, newCount: link.toRows) != nil || change.isFullReload
                else { return nil }
                composed = change
            }
            (count, rows) = (link.toCount, link.toRows)
            if count == file.changeCount { break }
        }
        guard count == file.changeCount, rows == file.rowCount else { return nil }
        return composed
    }
}
