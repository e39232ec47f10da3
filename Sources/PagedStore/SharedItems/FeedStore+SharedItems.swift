/// One item in many feeds (see ``FeedItem/sharedItemType``).
extension FeedStore {
    /// Removes the item with `id` from every feed of the store that shares `type`'s items, in one
    /// transaction; each feed's open lists show the deletion at their own row.
    ///
    /// ```swift
    /// // The post was deleted: gone from the home timeline, the profile and the hashtag alike.
    /// try store.remove(id: post.id, of: Post.self)
    /// ```
    ///
    /// To remove it from one feed only, use that feed's ``Feed/remove(id:)``. A type without a
    /// ``FeedItem/sharedItemType`` shares nothing: its items are each feed's own, and nothing is
    /// removed here.
    /// - Returns: How many feeds held the item.
    /// - Throws: ``StorageError`` when the file cannot be written (``StorageError/Kind/readOnly`` for a
    ///   read-only store).
    @discardableResult
    public func remove<Item: FeedItem>(id: Item.ID, of type: Item.Type) throws -> Int {
        guard let shared = Item.sharedItemType else { return 0 }
        if isReadOnly { throw StorageError(.readOnly, message: "A read-only store cannot remove items") }
        let itemID = Item.storedID(for: id)
        return try writer.transaction(by: LiveFeeds.shared.newFollower(), growing: false) { store in
            // A removal pending in a feed has no row here, but its rollback would put the item back.
            try store.forgetPendingRemovalPlaces(of: itemID, sharedAs: shared)
            var written: [RecordedWrite] = []
            for holder in try store.feedsHolding(itemID, sharedAs: shared) {
                var feed = holder
                guard let removed = try store.removeItem(itemID, from: &feed) else { continue }
                written.append(RecordedWrite(before: holder, after: feed, change: RowChange(deleted: [removed.row])))
            }
            return (written.count, written)
        }
    }
}
