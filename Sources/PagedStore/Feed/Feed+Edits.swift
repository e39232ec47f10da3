import Foundation

/// Local edits of single rows.
extension Feed {
    /// Removes the item with `id` from the feed and the cache.
    /// - Returns: Whether the feed had it.
    /// - Throws: ``FeedError`` when the cache cannot be written.
    @discardableResult
    public func remove(id: Item.ID) throws -> Bool {
        let storedID = Item.storedID(for: id)
        return try edit { store, feed in
            guard let removed = try store.removeItem(storedID, from: &feed) else { return nil }
            return RowEdit(RowChange(deleted: [removed.row]))
        }
    }

    /// Replaces the item with the same id, in place (a reload of its row).
    ///
    /// Fields of the stored item that `Item` does not declare (the row was written by a larger model:
    /// the app's, where this is a widget's) are kept.
    /// - Returns: Whether the feed had it.
    /// - Throws: ``FeedError`` when the item cannot be encoded or the cache cannot be written.
    @discardableResult
    public func update(_ item: Item) throws -> Bool {
        let plain = try encode([item]).encoded[0]
        return try edit { store, feed in
            guard let stored = try store.items(withIDs: [plain.itemID], in: feed)[plain.itemID] else { return nil }
            let encoded =
                (try? codec.decode(stored.payload)).map {
                    context.writer.keeping(plain, of: item, replacing: (stored.payload, stored.section), readAs: $0)
                } ?? plain
            guard try store.updateItem(encoded, in: &feed) else { return nil }
            let row = try store.rowIndex(ofPosition: stored.position, in: feed)
            return RowEdit(RowChange(reloaded: [row], reloadedIDs: [encoded.itemID]), copies: [encoded])
        }
    }

    /// Inserts an item so that it becomes row `row` (clamped to the feed; the row count appends).
    /// - Throws: ``FeedError`` when the feed already has an item with this id, or the cache cannot be written.
    public func insert(_ item: Item, at row: Int) throws {
        let encoded = try encode([item]).encoded[0]
        _ = try edit { store, feed in
            let position = try store.insertItem(encoded, atRow: row, local: true, in: &feed)
            return RowEdit(RowChange(inserted: [try store.rowIndex(ofPosition: position, in: feed)]), copies: [encoded])
        }
    }

    /// Runs an edit that decodes the row it edits (``decode(_:)``): a row the codec cannot decode is
    /// removed instead (``dropUndecodable(_:)``), and the feed is said not to have it.
    func editDecodable(_ body: (PageStore, inout FeedRecord) throws -> RowEdit?) throws -> Bool {
        do {
            return try edit(body)
        } catch let error as FeedError {
            guard let undecodable = error.underlying as? UndecodableRowError else { throw error }
            _ = try dropUndecodable([undecodable.row])
            return false
        }
    }

    /// Runs a local edit in one transaction and emits its change; nil from `body` means nothing changed.
    func edit(_ body: (PageStore, inout FeedRecord) throws -> RowEdit?) throws -> Bool {
        do {
            // The edit's row numbers are the file's: the rows on screen must be the file's first.
            try syncWithFile()
            // Another `Feed` may write the feed after the look above: the writer then makes the
            // change one full reload, computed on the file's rows rather than the ones in memory.
            let result = try write { store, feed in
                try body(store, &feed).map {
                    Commit(record: feed, change: $0.change, window: .reload, copies: $0.copies)
                }
            }
            guard let commit = result else { return false }
            try apply(commit)
            report(.edited, nil, generation: activity.generation, rows: commit.change.touchedRows)
            return true
        } catch {
            throw FeedError(error)
        }
    }
}

/// What a local edit did to a feed's rows.
struct RowEdit {
    /// The change to the rows.
    var change: RowChange
    /// The item's new copy, when the edit stored one for every feed sharing it (``Feed/update(_:)``,
    /// ``Feed/insert(_:at:)``, an optimistic update); none when the row stays the feed's own (an
    /// optimistic insert or removal).
    var copies: [EncodedItem]

    init(_ change: RowChange, copies: [EncodedItem] = []) {
        self.change = change
        self.copies = copies
    }
}
