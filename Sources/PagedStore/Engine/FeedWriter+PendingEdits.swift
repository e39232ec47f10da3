import Foundation

/// Re-applying pending optimistic edits in the write that changed their rows (see
/// ``PendingEditReplay`` for the rules).
extension FeedWriter {
    /// Re-applies the feed's pending edits on top of what `commit` wrote, in the caller's
    /// transaction, and adjusts its change to match: an update whose row got a new server value
    /// shows that value with the edit's change applied again, a removed item the write brought back
    /// goes again, and an inserted item the write dropped goes back.
    /// - Parameter changes: The change each update of this store made, by stored id; an edit made
    ///   by another store (or before a relaunch) shows the value stored with it.
    /// - Returns: How many edits remain pending, and the rows that could not be applied (deleted).
    func replayPendingEdits(
        on commit: inout FeedCommit<Item>, changes: [String: @Sendable (inout Item) -> Void], in store: PageStore
    ) throws -> (remaining: Int, dropped: [MalformedPendingEdit]) {
        var feed = commit.record
        var dropped: [MalformedPendingEdit] = []
        let pending = try Feed<Item>.applicablePendingEdits(of: feed, in: store, codec: codec, dropped: &dropped)
        var touched = false
        var remaining = pending.count
        for var edit in pending {
            let stored = try store.items(withIDs: [edit.itemID], in: feed)[edit.itemID]
            switch PendingEditReplay.step(for: edit, stored: stored) {
            case .keep:
                continue
            case .reapply:
                guard let stored, let shown = edit.edited else { continue }
                guard var item = try? codec.decode(stored.payload) else {
                    // The server's value there does not decode: the row goes (``Feed/apply(_:)``
                    // removes and reports it), and its edit with it, never written over it.
                    commit.undecodable.append(
                        UndecodableRow(
                            itemID: edit.itemID, position: stored.position,
                            error: "the row under a pending edit cannot be decoded"))
                    try store.deletePendingEdit(itemID: edit.itemID, in: feed)
                    remaining -= 1
                    touched = true
                    continue
                }
                var edited = EncodedItem(itemID: edit.itemID, section: stored.section, payload: shown)
                if let change = changes[edit.itemID] {
                    change(&item)
                    edited = try encode(item)
                }
                (edit.base, edit.baseSection, edit.edited) = (stored.payload, stored.section, edited.payload)
                _ = try store.updateItem(edited, in: &feed)
            case .removeAgain:
                guard let stored else { continue }
                let around = try store.neighbours(of: stored.position, in: feed)
                let named = try store.items(withIDs: [edit.above, edit.below].compactMap { $0 }, in: feed)
                let takesNewPlace = PendingEditReplay.takesNewPlace(
                    cameBackAt: stored.position, removedBetween: edit.above.flatMap { named[$0]?.position },
                    and: edit.below.flatMap { named[$0]?.position })
                guard let removed = try store.removeItem(edit.itemID, from: &feed) else { continue }
                (edit.base, edit.baseSection) = (stored.payload, stored.section)
                if takesNewPlace { (edit.above, edit.below) = around }
                if !commit.change.withdrawInsertion(ofNewRow: removed.row) { commit.change = .fullReload }
            case .putBack:
                guard let shown = edit.edited else { continue }
                let item = EncodedItem(itemID: edit.itemID, section: edit.baseSection, payload: shown)
                // Kept in sight even when the rows around it are gone: the user just posted it.
                let row = try PendingEditSettlement.row(for: edit, in: feed, store) ?? 0
                let position = try store.insertItem(item, atRow: row, local: true, in: &feed)
                (edit.above, edit.below) = try store.neighbours(of: position, in: feed)
                commit.change.addInsertion(ofNewRow: try store.rowIndex(ofPosition: position, in: feed))
            }
            touched = true
            try store.savePendingEdit(edit, in: feed)
        }
        if touched {
            commit.record = feed
            commit.window = .reload
            commit.replayedEdits = true
        }
        return (remaining, dropped)
    }

    /// Encodes an item as the cache stores it.
    func encode(_ item: Item) throws -> EncodedItem {
        do {
            return EncodedItem(itemID: item.storedID, section: item.sectionKey, payload: try codec.encode(item))
        } catch {
            throw FeedError(.codec, message: "The item \(item.storedID.debugDescription) cannot be encoded: \(error)")
        }
    }
}
