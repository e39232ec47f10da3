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
    /// is emptied as on a first launch (its cursors and states reset), so that it loads again
    /// instead of saying the server has nothing, unless the rows are those of the first page a
    /// refresh just wrote (`inARefreshedPage`): the server's own items are what the model refuses,
    /// and the feed keeps its cursors, so that the refresh goes on with the next page instead of
    /// fetching the same page for ever.
    /// - Returns: The removed rows with their indices before the removal, ascending, the pending
    ///   edits dropped with them, to report, and the server's copies the other feeds sharing their
    ///   items show again (see ``LeavingRowEdits/rowsLeave(_:item:in:store:at:restoring:)``).
    static func remove(
        _ rows: [UndecodableRow], from feed: inout FeedRecord, in store: PageStore, at date: Date,
        inARefreshedPage: Bool
    ) throws -> (
        removed: [(index: Int, row: UndecodableRow)], droppedEdits: [MalformedPendingEdit], restored: [EncodedItem]
    ) {
        var removed: [(index: Int, row: UndecodableRow)] = []
        var dropped: [MalformedPendingEdit] = []
        var restored: [EncodedItem] = []
        for row in rows.sorted(by: { $0.position > $1.position }) {
            guard try store.items(withIDs: [row.itemID], in: feed)[row.itemID]?.position == row.position else {
                continue
            }
            let around = try store.placeNeighbours(of: row.position, in: feed)
            guard let item = try store.removeItem(row.itemID, from: &feed) else { continue }
            // The item stays in the server's list, where its neighbours are: the pending edits that
            // named it as a neighbour name them instead, or a rollback would find no row there.
            try store.handOnPlace(of: row.itemID, above: around.above, below: around.below, in: feed)
            dropped += try LeavingRowEdits.rowsLeave(
                .undecodable, item: row.itemID, in: feed, store: store, at: date, restoring: &restored)
            removed.append((item.row, row))
        }
        if !removed.isEmpty, feed.rowCount == 0, !inARefreshedPage { try store.clearFeed(&feed) }
        return (removed.reversed(), dropped, restored)
    }
}
