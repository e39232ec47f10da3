import Foundation

/// Committing a page newer than the cached head, on top of it.
extension Feed {
    /// Writes a page that is newer than the cached head on top of it, dropping ids the feed has.
    func commitNewer(
        _ page: Page<Item>, askedWith cursor: String, task: FeedActivity.TaskID, generation: Int64, continuing: Bool
    ) throws -> Commit? {
        let (encoded, items) = try encode(page.items)
        // Without a newer cursor the server gives no way further up: keep the one that got here.
        let write = PageWrite(
            request: .newer, requestCursor: cursor, olderCursor: page.olderCursor,
            newerCursor: page.newerCursor ?? cursor, fetchedAt: clock.date())
        return try refreshTransaction(task: task, generation: generation, continuing: continuing) { store, feed in
            let known = try store.items(withIDs: encoded.map(\.itemID), in: feed)
            // New items go on top, above the first row the feed has. An item it lacks below that row
            // (one the app removed, listed again) would be out of place on top: the merge of a later
            // first page puts it back where it belongs.
            let fresh = Array(encoded.indices.prefix { known[encoded[$0].itemID] == nil })
            let deleted = try Self.deleteRowsSkipped(
                by: encoded, as: .newer(top: feed.topPosition), known: known, in: &feed, store: store)
            let newItems = fresh.map { encoded[$0] }
            let positions = try store.prependPage(newItems, page: write, to: &feed)
            let rows = Self.newRows(fresh.map { items[$0] }, newItems, positions: positions)
            return Commit(
                record: feed, change: RowChange(deleted: deleted, inserted: Array(0..<newItems.count)),
                window: deleted.isEmpty ? .prepend(rows, reloads: []) : .reload, copies: newItems)
        }
    }
}
