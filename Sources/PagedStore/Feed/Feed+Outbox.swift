public import Foundation

/// Edits made by kind: shown at once, stored with an idempotency key, and sent by the store's
/// ``Outbox`` until the server settles them, also after a relaunch.
extension Feed: OutboxFeed {
    /// Changes an item at once and queues the edit for the handler of `kind`.
    ///
    /// ```swift
    /// try await feed.enqueue("like", id: post.id, argument: LikeArgument(liked: true)) { post in
    ///     post.isLiked = true
    /// }
    /// ```
    ///
    /// The edited item is written and emitted at once (a reload of its row), and stored with
    /// `argument` and a new idempotency key. The store's ``Outbox`` sends it with the handler
    /// registered for `kind`, now or once one is registered, after a relaunch too; until the server
    /// settles it, every refresh keeps it on top of the server's value. Rejected, it is rolled back
    /// as ``edit(id:_:commit:)`` rolls back a failed call.
    /// - Returns: The edit's idempotency key, or nil when the feed lacks the item (nothing is queued).
    ///
    /// An item may have several edits queued (liked, then unliked, offline): they are sent in order,
    /// each once the one before it settled. A rejected one is rolled back and the later ones stay,
    /// shown on top of the value it restored.
    /// - Throws: ``FeedError`` when the item has an edit made with a closure pending, or is removed
    ///   and waiting (its removal queued or pending); when the item or the argument cannot be encoded,
    ///   or the cache cannot be written.
    @discardableResult
    public func enqueue<Argument: Encodable & Sendable>(
        _ kind: String, id: Item.ID, argument: Argument, _ change: @escaping @Sendable (inout Item) -> Void
    ) async throws -> UUID? {
        let queued = try Self.queuedEdit(kind, argument)
        guard try beginUpdate(Item.storedID(for: id), change, queued: queued) != nil else { return nil }
        await context.outbox.outbox?.queued(by: self)
        return queued.idempotencyKey
    }

    /// Inserts an item at once so that it becomes row `row`, and queues the insert for the handler
    /// of `kind` (see ``enqueue(_:id:argument:_:)``). Rejected, the item is removed again.
    /// - Returns: The edit's idempotency key.
    /// - Throws: ``FeedError`` when the feed has an item with this id already, the item or the
    ///   argument cannot be encoded, or the cache cannot be written.
    @discardableResult
    public func enqueue<Argument: Encodable & Sendable>(
        _ kind: String, inserting item: Item, at row: Int, argument: Argument
    ) async throws -> UUID {
        let queued = try Self.queuedEdit(kind, argument)
        _ = try beginInsert(item, at: row, queued: queued)
        await context.outbox.outbox?.queued(by: self)
        return queued.idempotencyKey
    }

    /// Removes an item at once and queues the removal for the handler of `kind` (see
    /// ``enqueue(_:id:argument:_:)``). Rejected, the item goes back between the rows it had around it.
    /// - Returns: The edit's idempotency key, or nil when the feed lacks the item (nothing is queued).
    /// - Throws: ``FeedError`` when the item's removal is pending already, the argument cannot be
    ///   encoded or the cache cannot be written.
    @discardableResult
    public func enqueue<Argument: Encodable & Sendable>(
        _ kind: String, removing id: Item.ID, argument: Argument
    ) async throws -> UUID? {
        let queued = try Self.queuedEdit(kind, argument)
        guard try beginRemoval(Item.storedID(for: id), queued: queued) != nil else { return nil }
        await context.outbox.outbox?.queued(by: self)
        return queued.idempotencyKey
    }

    /// Settles the queued edit with `key` as the outbox learnt it: only the edit that was sent, not
    /// one of the item made since; on its row, or alone when it shows on none (its row left under
    /// it, see ``PendingEditFate``, also by the settling write itself when it finds its payloads
    /// unusable).
    func settleQueuedEdit(_ itemID: String, key: UUID, confirmed: Bool) throws {
        try finish(itemID, committed: confirmed, key: key)
    }

    /// A new queued edit of `kind`, its argument encoded.
    private static func queuedEdit(_ kind: String, _ argument: some Encodable) throws -> QueuedEdit {
        do {
            return QueuedEdit(kind: kind, argument: try JSONEncoder().encode(argument), idempotencyKey: UUID())
        } catch {
            throw FeedError(
                .codec, message: "The argument of a \(kind.debugDescription) edit cannot be encoded: \(error)")
        }
    }
}
