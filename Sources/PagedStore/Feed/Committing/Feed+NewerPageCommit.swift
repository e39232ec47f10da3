import Foundation

/// Committing a page newer than the cached head, on top of it.
extension Feed {
    /// Writes a page that is newer than the cached head on top of it (``NewerPageRule``).
    func commitNewer(
        _ page: Page<Item>, askedWith cursor: String, task: FeedActivity.TaskID, generation: Int64, continuing: Bool
    ) throws -> Commit? {
        let (encoded, items) = try encode(page.items)
        // Without a newer cursor the server gives no way further up: keep the one that got here.
        let write = PageWrite(
            request: .newer, requestCursor: cursor, olderCursor: page.olderCursor,
            newerCursor: page.newerCursor ?? cursor, fetchedAt: clock.date())
        let order = policy.itemOrder
        return try refreshTransaction(task: task, generation: generation, continuing: continuing) { store, feed in
            let ids = encoded.map(\.itemID)
            var known = try store.items(withIDs: ids, in: feed)
            let rows = Set(known.keys)
            let hidden =
                try NewerPageRule.needsHiddenItems(itemIDs: ids, rows: rows) && store.hasPendingEdits(in: feed)
                ? try store.hiddenItemIDs(in: feed) : []
            let plan = NewerPageRule.plan(itemIDs: ids, rows: rows, hidden: hidden, order: order)
            // Moved rows prove nothing where they were; their old rows go (indices before the page).
            let movedIDs = plan.moved.map { ids[$0] }
            let movedRows = try movedIDs.compactMap { id in
                try known.removeValue(forKey: id).map { try store.rowIndex(ofPosition: $0.position, in: feed) }
            }
            let skipped = try Self.deleteRowsSkipped(
                by: encoded, as: .newer(top: feed.topPosition), known: known, in: &feed, store: store)
            for id in movedIDs { _ = try store.removeMovedItem(id, from: &feed) }
            let deleted = (skipped + movedRows).sorted()
            let newItems = plan.onTop.map { encoded[$0] }
            let positions = try store.prependPage(newItems, page: write, to: &feed)
            let loaded = Self.newRows(plan.onTop.map { items[$0] }, newItems, positions: positions)
            var commit = Commit(
                record: feed, change: RowChange(deleted: deleted, inserted: Array(0..<newItems.count)),
                window: deleted.isEmpty ? .prepend(loaded, reloads: []) : .reload, copies: newItems)
            commit.movedUp = Set(plan.hiddenOnTop.map { ids[$0] })
            commit.leftTheirPlaces = Set(plan.hiddenBumped.map { ids[$0] })
            return commit
        }
    }
}
