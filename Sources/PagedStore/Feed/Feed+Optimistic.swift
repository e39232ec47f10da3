import Foundation

/// Optimistic local edits: shown at once, persisted, and rolled back when the server call fails.
extension Feed {
    /// Changes an item at once and keeps the change only if `commit` (the server call) succeeds.
    ///
    /// ```swift
    /// try await feed.edit(id: post.id) { post in
    ///     post.isLiked = true
    /// } commit: { post in
    ///     try await api.like(post.id)
    /// }
    /// ```
    ///
    /// The edited item is written and emitted before `commit` runs (a reload of its row, and its id
    /// in ``FeedChange/reconfiguredIDs``). If `commit` throws, the row is rolled back to the server's
    /// value (written and emitted the same way) and the error is rethrown. A refresh that lands while
    /// the edit is pending does not undo it: `change` is applied again on top of the refreshed value,
    /// and a rollback restores that refreshed value. Once `commit` succeeds the edit is no longer
    /// pending, and the next refresh's server value wins. The edit is stored until then, so after a
    /// relaunch it is listed by ``pendingEdits()``.
    /// - Returns: Whether the feed had the item (nothing is edited or committed when it had not).
    /// - Throws: `commit`'s error after the rollback; ``FeedError`` when the item has an edit pending
    ///   already, cannot be encoded, or the cache cannot be written.
    @discardableResult
    public func edit(
        id: Item.ID, _ change: @escaping @Sendable (inout Item) -> Void,
        commit: @Sendable (Item) async throws -> Void
    ) async throws -> Bool {
        let storedID = Item.storedID(for: id)
        guard let edited = try beginUpdate(storedID, change, queued: nil) else { return false }
        try await settle(storedID, commit: { try await commit(edited) })
        return true
    }

    /// Inserts an item at once so that it becomes row `row`, and removes it again if `commit` (the
    /// server call that posts it) throws. See ``edit(id:_:commit:)`` for how it is stored and survives
    /// refreshes: while pending, a refresh that dropped the row puts it back.
    /// - Throws: `commit`'s error after the rollback; ``FeedError`` when the feed has an item with this
    ///   id already or the cache cannot be written.
    public func insert(_ item: Item, at row: Int, commit: @Sendable (Item) async throws -> Void) async throws {
        let storedID = try beginInsert(item, at: row, queued: nil)
        try await settle(storedID, commit: { try await commit(item) })
    }

    /// Removes an item at once, and puts it back where it was if `commit` (the server call that
    /// deletes it) throws. See ``edit(id:_:commit:)`` for how it is stored and survives refreshes:
    /// while pending, a refresh that brings the item back removes it again.
    /// - Returns: Whether the feed had the item (nothing is removed or committed when it had not).
    /// - Throws: `commit`'s error after the rollback; ``FeedError`` when the item has an edit pending
    ///   already (its removal among them) or the cache cannot be written.
    @discardableResult
    public func remove(id: Item.ID, commit: @Sendable (Item) async throws -> Void) async throws -> Bool {
        let storedID = Item.storedID(for: id)
        guard let removedItem = try beginRemoval(storedID, queued: nil) else { return false }
        try await settle(storedID, commit: { try await commit(removedItem) })
        return true
    }

    /// The edits whose server call has not answered, oldest first: after a relaunch, the ones whose
    /// outcome the app must settle with ``settlePendingEdit(itemID:committed:)``.
    /// - Throws: ``FeedError`` when the cache cannot be read.
    public func pendingEdits() throws -> [PendingEdit] {
        do {
            try syncWithFile()
            return try queue.read { store in try store.pendingEdits(of: loaded.record) }.map {
                PendingEdit(
                    itemID: $0.itemID, kind: PendingEdit.Kind(rawValue: $0.kind.rawValue) ?? .update,
                    createdAt: $0.createdAt)
            }
        } catch {
            throw FeedError(error)
        }
    }

    /// Settles a pending edit whose call's outcome the app learnt some other way (after a relaunch):
    /// `committed` keeps it, otherwise it is rolled back, written and emitted as a rollback after a
    /// failed call is.
    /// - Throws: ``FeedError`` when the cache cannot be written.
    public func settlePendingEdit(itemID: String, committed: Bool) throws {
        try finish(itemID, committed: committed)
    }

    /// Runs the server call of a pending edit, then keeps or rolls back the edit.
    private func settle(_ storedID: String, commit: () async throws -> Void) async throws {
        do {
            try await commit()
        } catch {
            do {
                try finish(storedID, committed: false)
            } catch let rollback {
                // The edit stays pending in the cache (listed by pendingEdits()); the call's error is
                // what the caller must see.
                recordError(FeedError(rollback))
            }
            throw error
        }
        try finish(storedID, committed: true)
    }

    /// Settles a pending edit through ``EditSettlement``: its row rolled back unless it was
    /// committed, written and emitted; with `key`, only the queued edit with that idempotency key
    /// (not one made since), which may show on no row (detached).
    /// - Returns: Whether it settled the edit: not when the write found it gone, or not the item's
    ///   first.
    @discardableResult
    func finish(_ storedID: String, committed: Bool, key: UUID? = nil) throws -> Bool {
        var dropped: [MalformedPendingEdit] = []
        var restored: [EncodedItem] = []
        var settled = EditSettlement.Settled.nothing
        let codec = self.codec
        // The later edits this feed made go again with their own changes on what a rollback restores.
        let carry = writer.carryAnywhere(optimistic.changes)
        let now = clock.date()
        do {
            // The settlement's row numbers are the file's: the rows on screen must be the file's first.
            try syncWithFile()
            // A rollback restores the server's copy in every feed sharing the item (the outcome's
            // copies); a confirmed edit stays shown until the next server copy.
            let commit = try write { store, feed in
                // Edits the codec cannot read are dropped or detached first: a detached one settles alone.
                let applicable = try Self.applicablePendingEdits(
                    of: feed, item: storedID, in: store, codec: codec, dropped: &dropped, restoring: &restored, at: now)
                let stack = PendingEditStack.stacks(applicable).first ?? []
                settled = try EditSettlement.settle(
                    storedID, key: key, confirmed: committed, stack: stack, in: store, feed: &feed, at: now,
                    carry: carry)
                // Updates of shared items dropped unreadable: the other feeds show the server's copy again.
                var commit = Commit(
                    record: feed, change: RowChange(), window: .reload, copies: restored, onlyItem: storedID)
                switch settled {
                case .onItsRow(let outcome, _):
                    dropped += outcome.dropped
                    commit.change = outcome.change ?? RowChange()
                    commit.copies += outcome.copies
                    if outcome.change == nil && commit.copies.isEmpty { return nil }
                case .detached(let otherFeeds, let droppedWithIt):
                    dropped += droppedWithIt
                    commit.otherFeeds = otherFeeds
                    if otherFeeds.isEmpty && commit.copies.isEmpty { return nil }
                case .nothing:
                    if commit.copies.isEmpty { return nil }
                }
                return commit
            }
            if let commit, commit.change != RowChange() || commit.adoptsFile {
                try apply(commit)
                report(.edited, nil, generation: activity.generation, rows: commit.change.touchedRows)
            }
        } catch {
            throw FeedError(error)
        }
        reportDropped(dropped)
        switch settled {
        case .onItsRow(_, let gone):
            for key in gone { optimistic.changes[key] = nil }
            return true
        case .detached:
            // Its change, if this feed made it, has nothing left to carry.
            optimistic.changes = optimistic.changes.filter { $0.key.idempotencyKey != key }
            return true
        case .nothing:
            return false
        }
    }
}
