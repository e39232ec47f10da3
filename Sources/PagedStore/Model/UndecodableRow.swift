import Foundation

/// A cached row whose payload the feed's item codec cannot decode: written by an earlier version of
/// the app's model, or edited in the file.
///
/// Such a row costs that row only: it is removed from the cache (a page that lists the item again
/// writes it anew), left out of every count, window and change, and reported once in the events
/// (``FeedEvent/Kind/undecodableRowsRemoved``).
struct UndecodableRow: Sendable, Equatable {
    /// The row's item id.
    var itemID: String
    /// The row's place in the feed's order.
    var position: Int64
    /// Why the codec refused it.
    var error: String
}

extension UndecodableRow {
    /// Removes each of `rows` still at its place in the caller's write transaction; its pending edits
    /// go as ``PendingEditFate`` says (queued ones stay queued, detached). A feed left with no rows
    /// loads again, as on a first launch, but keeps its pages' cursors.
    /// - Returns: The removed rows with their indices before the removal, ascending, the pending
    ///   edits dropped with them, to report, and the server's copies the other feeds sharing their
    ///   items show again (see ``LeavingRowEdits/rowsLeave(_:item:in:store:at:restoring:)``).
    static func remove(
        _ rows: [UndecodableRow], from feed: inout FeedRecord, in store: PageStore, at date: Date
    ) throws -> (
        removed: [(index: Int, row: UndecodableRow)], droppedEdits: [MalformedPendingEdit], restored: [EncodedItem]
    ) {
        var removed: [(index: Int, row: UndecodableRow)] = []
        var dropped: [MalformedPendingEdit] = []
        var restored: [EncodedItem] = []
        for row in rows.sorted(by: { $0.position > $1.position }) {
            guard try store.items(withIDs: [row.itemID], in: feed)[row.itemID]?.position == row.position,
                let item = try store.removeItem(row.itemID, from: &feed)
            else { continue }
            dropped += try LeavingRowEdits.rowsLeave(
                .undecodable, item: row.itemID, in: feed, store: store, at: date, restoring: &restored)
            removed.append((item.row, row))
        }
        if !removed.isEmpty, feed.rowCount == 0 {
            // Loading again: the content says loading, not empty, and a refresh on open is due, so
            // that rows an older model wrote do not read as a server with nothing. The pages keep
            // their cursors, as after any removal of a feed's last row: when every row of the page
            // just fetched is refused, the next page follows instead of the same page for ever.
            feed.loaded = false
            feed.lastRefreshAt = nil
            try store.save(&feed)
        }
        return (removed.reversed(), dropped, restored)
    }
}
