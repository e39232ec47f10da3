import Foundation

/// Re-applying pending optimistic edits in the write that changed their rows (see
/// ``PendingEditReplay`` for the rules).
extension FeedWriter {
    /// Re-applies the feed's pending edits on top of what `commit` wrote, in the caller's
    /// transaction, and adjusts its change to match: an update whose row got a new server value
    /// shows that value with the item's edits applied again in order, a removed item the write
    /// brought back goes again, and an inserted item the write dropped goes back.
    /// - Parameter changes: The change each update of this store made, by item and step; an edit
    ///   made by another store (or before a relaunch) carries what it changed (``PayloadRebase``).
    /// - Returns: How many edits remain pending, the rows that could not be applied (deleted), and
    ///   the server's copies of shared items whose updates no longer show here, which the other
    ///   feeds holding them showed: the caller spreads them.
    func replayPendingEdits(
        on commit: inout FeedCommit<Item>, changes: [PendingEditKey: @Sendable (inout Item) -> Void],
        in store: PageStore
    ) throws -> (remaining: Int, dropped: [MalformedPendingEdit], restored: [EncodedItem]) {
        var feed = commit.record
        var dropped: [MalformedPendingEdit] = []
        var restored: [EncodedItem] = []
        let pending = try Feed<Item>.applicablePendingEdits(
            of: feed, item: commit.onlyItem, in: store, codec: codec, dropped: &dropped, restoring: &restored,
            at: self.store.clock.date())
        var touched = false
        var remaining = pending.count
        // Items the write brought back while their removals wait: they go again after the others'
        // steps, each with the rows around it read before any goes (see `removeAgain`).
        var goingAgain: [GoingAgain] = []
        for var stack in PendingEditStack.stacks(pending) {
            guard let combined = PendingEditStack.combined(stack) else { continue }
            let stored = try store.items(withIDs: [combined.itemID], in: feed)[combined.itemID]
            switch PendingEditStack.step(for: stack, combined: combined, stored: stored) {
            case .keep:
                continue
            case .reapply:
                guard let stored else { continue }
                guard let shown = try reapply(&stack, onto: stored, changes: changes) else {
                    // The server's value there does not decode: the row goes (``Feed/apply(_:)``
                    // removes and reports it), never written over, and its edits as
                    // ``PendingEditFate`` says (a queued one is still sent).
                    commit.undecodable.append(
                        UndecodableRow(
                            itemID: combined.itemID, position: stored.position,
                            error: "the row under a pending edit cannot be decoded"))
                    dropped += try LeavingRowEdits.rowsLeave(
                        .undecodable, item: combined.itemID, in: feed, store: store, at: self.store.clock.date())
                    // The other feeds showed the item's updates over this copy: they show the copy now,
                    // whether the edits were dropped or stay queued (a detached edit is on top of none).
                    if stack.first?.kind == .update {
                        restored.append(
                            EncodedItem(itemID: combined.itemID, section: stored.section, payload: stored.payload))
                    }
                    remaining -= stack.count
                    touched = true
                    continue
                }
                _ = try store.updateItem(
                    EncodedItem(itemID: combined.itemID, section: shown.section, payload: shown.payload), in: &feed)
            case .removeAgain:
                guard let stored, var removal = stack.popLast() else { continue }
                // The edits before the removal now stand on the server's value that came back.
                let before = try reapply(&stack, onto: stored, changes: changes) ?? (stored.payload, stored.section)
                let named = try store.items(withIDs: [removal.above, removal.below].compactMap { $0 }, in: feed)
                let disprovedByThePage = commit.refreshedPage.map {
                    PendingEditReplay.placeDisproved(
                        byFirstPage: $0.map(\.itemID), item: combined.itemID, above: removal.above, below: removal.below
                    )
                }
                // A lost place names rows of another list: the page's is the only one known.
                let standing = try store.pendingRemovalPlaceStanding(of: combined.itemID, in: feed)
                let takesNewPlace = PendingEditReplay.takesNewPlace(
                    cameBackAt: stored.position, removedBetween: removal.above.flatMap { named[$0]?.position },
                    and: removal.below.flatMap { named[$0]?.position },
                    placeDisproved: disprovedByThePage == true || standing.disproved || standing.lost
                        || commit.movedUp.contains(combined.itemID))
                (removal.base, removal.baseSection) = (before.payload, before.section)
                // The write that brought it back is what it goes back as: a page's row is the server's.
                removal.removedLocal = try store.isLocalRow(combined.itemID, in: feed)
                if takesNewPlace, commit.leftTheirPlaces.contains(combined.itemID) {
                    // Bumped: the removals that named it name what its removal named around the place
                    // it left, as they stand now (an item bumped before it in this write handed its
                    // place on already).
                    let current = try store.pendingEdits(ofItem: combined.itemID, in: feed).last { $0.kind == .remove }
                    if let current {
                        try store.handOnPlace(of: combined.itemID, above: current.above, below: current.below, in: feed)
                    }
                }
                // The position goes with the rows named: a removal keeping its old place keeps where
                // its row stood there, or the rows next to it would read it at a place it does not name.
                if takesNewPlace { removal.removedPosition = stored.position }
                stack.append(removal)
                goingAgain.append(GoingAgain(itemID: combined.itemID, stack: stack, takesNewPlace: takesNewPlace))
                continue
            case .putBack:
                guard let shown = combined.edited, var insert = stack.first else { continue }
                let item = EncodedItem(itemID: combined.itemID, section: combined.baseSection, payload: shown)
                // Kept in sight even when the rows around it are gone: the user just posted it.
                let place = try PendingEditSettlement.place(for: insert, in: feed, store) ?? .row(0)
                let position = try PendingEditSettlement.insert(item, at: place, local: true, in: store, feed: &feed)
                (insert.above, insert.below) = try store.neighbours(of: position, in: feed)
                stack[0] = insert
                commit.change.addInsertion(ofNewRow: try store.rowIndex(ofPosition: position, in: feed))
            }
            touched = true
            for edit in stack { try store.savePendingEdit(edit, in: feed) }
        }
        if !goingAgain.isEmpty {
            try removeAgain(goingAgain, from: &feed, in: store, change: &commit.change)
            touched = true
        }
        if touched {
            commit.record = feed
            commit.window = .reload
            commit.replayedEdits = true
        }
        // One item's edits say nothing of the others': whether any remain is one look.
        if commit.onlyItem != nil { remaining = try store.hasPendingEdits(in: feed) ? 1 : 0 }
        return (remaining, dropped, restored)
    }

    /// An item a write brought back while its removal waits, with the stack to save once it went
    /// again (its removal last).
    private struct GoingAgain {
        var itemID: String
        var stack: [PendingEditRecord]
        /// Whether the removal takes the rows around the item as its place (see
        /// ``PendingEditReplay/takesNewPlace(cameBackAt:removedBetween:and:placeDisproved:)``).
        var takesNewPlace: Bool
    }

    /// Removes again the items a write brought back while their removals wait. The rows around
    /// each are read before any goes: items the write listed next to each other name each other,
    /// as the rows around them, in the write's order. Read one by one as they go, each would name
    /// the last row left above them all, and their rollbacks would come back in the order of their
    /// answers. Beyond the rows, each names the closest place of another waiting removal (as a new
    /// removal does): a page that lists the top items again, above the places of items under them
    /// whose removals wait, joins them to those items, not to the first row shown below them all.
    private func removeAgain(
        _ items: [GoingAgain], from feed: inout FeedRecord, in store: PageStore, change: inout RowChange
    ) throws {
        var places: [String: (above: String?, below: String?)] = [:]
        let moving = Set(items.filter(\.takesNewPlace).map(\.itemID))
        for item in items where item.takesNewPlace {
            guard let position = try store.items(withIDs: [item.itemID], in: feed)[item.itemID]?.position else {
                continue
            }
            places[item.itemID] = try store.placeNeighbours(of: position, in: feed, passingOver: moving)
        }
        for var item in items {
            guard let removed = try store.removeItem(item.itemID, from: &feed) else { continue }
            if let place = places[item.itemID], let last = item.stack.indices.last {
                (item.stack[last].above, item.stack[last].below) = place
            }
            if !change.withdrawInsertion(ofNewRow: removed.row) { change = .fullReload }
            for edit in item.stack { try store.savePendingEdit(edit, in: feed) }
        }
    }

    /// Applies the stack's edits again on top of the server's new value of their row, in order (see
    /// ``PendingEditStack/rebased(_:onto:section:carry:)``); the first keeps that value as its base.
    /// - Returns: The value the row shows (the last update's), or nil when the server's value does
    ///   not decode under an edit whose change must run on it.
    private func reapply(
        _ stack: inout [PendingEditRecord], onto stored: StoredItem,
        changes: [PendingEditKey: @Sendable (inout Item) -> Void]
    ) throws -> PendingEditStack.Shown? {
        // An insert stays as it was: the server's copy of the item it posted is what the rest go on.
        let inserts = stack.prefix { $0.kind == .insert }
        do {
            let rebased = try PendingEditStack.rebased(
                Array(stack.dropFirst(inserts.count)), onto: stored.payload, section: stored.section,
                carry: carryAnywhere(changes))
            stack = inserts + rebased.edits
            return rebased.shown ?? (stored.payload, stored.section)
        } catch is UndecodableUnderEdit {
            return nil
        }
    }

    /// How an edit's change goes on a value: its change, when this feed made it (since it opened),
    /// on the value decoded; nil for an edit whose change is not known here.
    /// - Throws: ``UndecodableUnderEdit`` when the value does not decode; an encoding error.
    func carry(
        _ changes: [PendingEditKey: @Sendable (inout Item) -> Void]
    ) -> PendingEditStack.Carry {
        { [codec] edit, value in
            guard let change = changes[PendingEditKey(edit)] else { return nil }
            guard let original = try? codec.decode(value.payload) else { throw UndecodableUnderEdit() }
            var item = original
            change(&item)
            let encoded = try encode(item, replacing: value, readAs: original)
            return (encoded.payload, encoded.section)
        }
    }

    /// ``carry(_:)``, else the change of a list of the feed in another store of this process that
    /// made the edit (see ``LiveFeeds/carry(forKey:in:)``), so that an edit goes again as its change
    /// while the feed that made it is open in the process, whichever store writes. Only this feed's
    /// own codec can throw ``UndecodableUnderEdit``: another list's never throws.
    func carryAnywhere(_ changes: [PendingEditKey: @Sendable (inout Item) -> Void]) -> PendingEditStack.Carry {
        let own = carry(changes)
        guard let elsewhere = LiveFeeds.shared.carries(in: queue.file)(key) else { return own }
        return { edit, value in try own(edit, value) ?? elsewhere(edit, value) }
    }

    /// Encodes an item as the cache stores it.
    func encode(_ item: Item) throws -> EncodedItem {
        do {
            return EncodedItem(itemID: item.storedID, section: item.sectionKey, payload: try codec.encode(item))
        } catch {
            throw FeedError(.codec, message: "The item \(item.storedID.debugDescription) cannot be encoded: \(error)")
        }
    }

    /// Encodes an edited item that replaces `stored`, which this codec decoded as `original`, keeping
    /// what the model does not know: the fields of the stored payload it does not declare
    /// (``ItemCodec/keepingUnknownFields(of:readAs:in:)``), and the row's section unless the edit
    /// changed the model's section key (a model without the feed's sections would clear it).
    func encode(_ item: Item, replacing stored: PendingEditStack.Shown, readAs original: Item) throws -> EncodedItem {
        keeping(try encode(item), of: item, replacing: stored, readAs: original)
    }

    /// `encoded` (`item` encoded) as ``encode(_:replacing:readAs:)`` gives it, for a caller that
    /// encoded the item already.
    func keeping(
        _ encoded: EncodedItem, of item: Item, replacing stored: PendingEditStack.Shown, readAs original: Item
    ) -> EncodedItem {
        var kept = encoded
        kept.payload = codec.keepingUnknownFields(of: stored.payload, readAs: original, in: encoded.payload)
        if item.sectionKey == original.sectionKey { kept.section = stored.section }
        return kept
    }
}

/// A value an edit's change must run on that does not decode.
struct UndecodableUnderEdit: Error {}
