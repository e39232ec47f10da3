import Foundation

/// Settling the first pending edit of an item on its row, in the caller's write transaction: the
/// part of ``EditSettlement`` for an edit that shows.
///
/// It needs no codec: a rollback writes back the server's payload the edit keeps
/// (``PendingEditRecord/base``), byte for byte, so one edit settles alike through a `Feed` or
/// through the outbox alone.
enum PendingEditSettlement {
    /// What a settlement wrote.
    struct Outcome {
        /// The change to the feed's rows; nil when they did not change (confirmed, or nothing left
        /// to roll back).
        var change: RowChange?
        /// The server's copy a rejected update restores (or what the item's later edits show on
        /// it), for the feeds sharing the item, which showed the update too; for a confirmed insert
        /// with edits stacked on it, the other feeds' copy those edits now stand on; none for a
        /// removal, or an insert alone, which stayed this feed's own.
        var copies: [EncodedItem] = []
        /// The edits that went unsent: the later edits a rejected insert took with it. Each is kept
        /// in the outbox's history when it was queued, and reported as dropped.
        var dropped: [MalformedPendingEdit] = []
    }

    /// Deletes `pending` and, unless it was `confirmed`, rolls its row back to the server's value.
    ///
    /// `pending` is its item's first edit; the item's later edits stay pending. A confirmed edit
    /// leaves them as they are (each stands on the value it showed). A rejected update's rollback
    /// shows them carried onto the value it restores; a rejected insert takes them with it, never
    /// sent: they edit an item the server never had.
    /// - Parameter carry: How a later edit's change goes on a value, when the feed that made it knows
    ///   (see ``PendingEditStack/rebased(_:onto:section:carry:)``).
    static func settle(
        _ pending: PendingEditRecord, confirmed: Bool, in store: PageStore, feed: inout FeedRecord,
        carry: PendingEditStack.Carry = { _, _ in nil }
    ) throws -> Outcome {
        let itemID = pending.itemID
        // Read before the edit goes: a rejected removal whose place is lost waits for the pages.
        let placeLost =
            try pending.kind == .remove && !confirmed && store.pendingRemovalPlaceStanding(of: itemID, in: feed).lost
        try store.deletePendingEdit(pending, in: feed)
        if confirmed {
            // A confirmed removal's item is gone for good: the removals that named it take its place.
            if pending.kind == .remove {
                try store.handOnPlace(of: itemID, above: pending.above, below: pending.below, in: feed)
            }
            if pending.kind == .insert { return try joinSharedItem(itemID, in: store, feed: &feed, carry: carry) }
            return Outcome()
        }
        // Only an update was shown in the other feeds sharing the item, which its rollback must undo
        // there too; a removal or an insert stayed this feed's own, and so does its rollback.
        let rest = try store.pendingEdits(ofItem: itemID, in: feed)
        if !rest.isEmpty { return try rollBack(pending, under: rest, in: store, feed: &feed, carry: carry) }
        switch pending.kind {
        case .update:
            let restored = pending.base.map { EncodedItem(itemID: itemID, section: pending.baseSection, payload: $0) }
            guard let restored else { return Outcome() }
            guard let stored = try store.items(withIDs: [itemID], in: feed)[itemID] else {
                // Its row left (a page proved it deleted here): the other feeds sharing the item
                // still show the rejected update, and take the server's copy it restores.
                return Outcome(copies: [restored])
            }
            guard try store.updateItem(restored, in: &feed) else { return Outcome() }
            let row = try store.rowIndex(ofPosition: stored.position, in: feed)
            return Outcome(change: RowChange(reloaded: [row], reloadedIDs: [itemID]), copies: [restored])
        case .insert:
            return Outcome(change: try removeInserted(itemID, removedAt: nil, in: store, feed: &feed))
        case .remove:
            guard let base = pending.base, try store.items(withIDs: [itemID], in: feed)[itemID] == nil else {
                return Outcome()
            }
            // No row left on either side, or the rows it names went with the list they were of
            // (``PageStore/losePendingRemovalPlaces(in:)``): the list was replaced, and its pages
            // bring the item back in order; until then the removals that named it take its place.
            guard !placeLost, let place = try place(for: pending, in: feed, store) else {
                try store.handOnPlace(of: itemID, above: pending.above, below: pending.below, in: feed)
                return Outcome()
            }
            let item = EncodedItem(itemID: itemID, section: pending.baseSection, payload: base)
            // Put back as it was: a server's row, which pages that no longer list prove deleted, or
            // one the app made up, which they do not.
            let position = try insert(item, at: place, local: pending.removedLocal, in: store, feed: &feed)
            return Outcome(change: RowChange(inserted: [try store.rowIndex(ofPosition: position, in: feed)]))
        }
    }

    /// The server has the inserted item now: the edits stacked on its insert stop being the feed's
    /// own (see ``SharedCopyRule/keepsItsOwnCopy(stackStartingWith:)``) and go again on the server's
    /// copy the other feeds sharing the item hold, as they would on a page of the feed listing it, so
    /// that a rollback restores that copy; the value they show is every feed's from now on.
    private static func joinSharedItem(
        _ itemID: String, in store: PageStore, feed: inout FeedRecord, carry: PendingEditStack.Carry
    ) throws -> Outcome {
        guard let type = feed.sharedType else { return Outcome() }
        let rest = try store.pendingEdits(ofItem: itemID, in: feed)
        guard !rest.isEmpty, let copy = try store.serverCopy(of: itemID, sharedAs: type, except: feed.id) else {
            return Outcome()
        }
        let rebased = PendingEditStack.rebasedTryingCarry(rest, onto: copy.payload, section: copy.section, carry: carry)
        for edit in rebased.edits { try store.savePendingEdit(edit, in: feed) }
        // The copy is what the other feeds show under the pending edits (the newest of them on top,
        // this feed's now too, even when it removed the item since): spread as the server's copy it
        // is, never this feed's pending value as one.
        guard let shown = rebased.shown, let stored = try store.items(withIDs: [itemID], in: feed)[itemID],
            try store.updateItem(EncodedItem(itemID: itemID, section: shown.section, payload: shown.payload), in: &feed)
        else { return Outcome(copies: [copy]) }
        let row = try store.rowIndex(ofPosition: stored.position, in: feed)
        return Outcome(change: RowChange(reloaded: [row], reloadedIDs: [itemID]), copies: [copy])
    }

    /// Rolls back a rejected first edit whose item has later edits pending: an update's later edits
    /// show carried onto the server's value it restores; an insert's go with it.
    private static func rollBack(
        _ pending: PendingEditRecord, under rest: [PendingEditRecord], in store: PageStore, feed: inout FeedRecord,
        carry: PendingEditStack.Carry
    ) throws -> Outcome {
        let itemID = pending.itemID
        guard pending.kind == .update else {
            try store.deletePendingEdits(itemID: itemID, in: feed)
            let removal = rest.last { $0.kind == .remove }
            return Outcome(
                change: try removeInserted(itemID, removedAt: removal, in: store, feed: &feed),
                dropped: PendingEditStack.goingWithRejected(pending, later: rest))
        }
        guard let base = pending.base else { return Outcome() }
        let rebased = try PendingEditStack.rebased(rest, onto: base, section: pending.baseSection, carry: carry)
        for edit in rebased.edits { try store.savePendingEdit(edit, in: feed) }
        guard let shown = rebased.shown else {
            // Removed here meanwhile: the other feeds sharing the item still show the rejected update,
            // and take the server's copy it restores.
            return Outcome(copies: [EncodedItem(itemID: itemID, section: pending.baseSection, payload: base)])
        }
        let showing = EncodedItem(itemID: itemID, section: shown.section, payload: shown.payload)
        guard let stored = try store.items(withIDs: [itemID], in: feed)[itemID],
            try store.updateItem(showing, in: &feed)
        else { return Outcome() }
        let row = try store.rowIndex(ofPosition: stored.position, in: feed)
        return Outcome(change: RowChange(reloaded: [row], reloadedIDs: [itemID]), copies: [showing])
    }

    /// Removes a rejected insert's row and hands its place to the edits that named it; when it was
    /// removed again meanwhile (`removal`), they take the place that removal named.
    private static func removeInserted(
        _ itemID: String, removedAt removal: PendingEditRecord?, in store: PageStore, feed: inout FeedRecord
    ) throws -> RowChange? {
        guard let stored = try store.items(withIDs: [itemID], in: feed)[itemID] else {
            if let removal {
                try store.handOnPlace(of: itemID, above: removal.above, below: removal.below, in: feed)
            }
            return nil
        }
        let around = try store.neighbours(of: stored.position, in: feed)
        guard let removed = try store.removeItem(itemID, from: &feed) else { return nil }
        try store.handOnPlace(of: itemID, above: around.above, below: around.below, in: feed)
        return RowChange(deleted: [removed.row])
    }

    /// Where a pending edit's item goes back: a row or, for a removal rolled back, the position its
    /// row had.
    enum Place: Equatable {
        case row(Int)
        case position(Int64)
    }

    /// Where a pending edit's item goes back between the rows it had around it, or the closest rows
    /// still shown on each side when those were removed too (see
    /// ``PendingEditReplay/standIn(for:on:rows:removedPlaces:)``,
    /// ``PendingEditReplay/rowBetween(aboveRow:belowRow:serverRow:named:)`` and
    /// ``PendingEditReplay/goesBackAtItsPosition(_:above:below:firstRowFromRemoved:)``); nil
    /// when it waits for the pages.
    static func place(for edit: PendingEditRecord, in feed: FeedRecord, _ store: PageStore) throws -> Place? {
        let namedIDs = [edit.above, edit.below].compactMap { $0 }
        var rows = try store.items(withIDs: namedIDs, in: feed)
        var places: [String: (above: String?, below: String?)] = [:]
        if rows.count < namedIDs.count {
            places = try store.pendingRemovalPlaces(in: feed)
            places[edit.itemID] = nil
            let chained = places.values.flatMap { [$0.above, $0.below] }.compactMap { $0 }
            rows.merge(try store.items(withIDs: chained, in: feed)) { kept, _ in kept }
        }
        func position(standingFor id: String?, on side: PendingEditReplay.Side) -> Int64? {
            let standIn = PendingEditReplay.standIn(for: id, on: side, rows: Set(rows.keys), removedPlaces: places)
            return standIn.flatMap { rows[$0]?.position }
        }
        func names(_ id: String?, on side: PendingEditReplay.Side) -> Bool {
            !PendingEditReplay.standsForTheEnd(id, on: side, rows: Set(rows.keys), removedPlaces: places)
        }
        let (above, below) = (
            position(standingFor: edit.above, on: .above), position(standingFor: edit.below, on: .below)
        )
        let aboveRow = try above.map { try store.rowIndex(ofPosition: $0, in: feed) }
        let belowRow = try below.map { try store.rowIndex(ofPosition: $0, in: feed) }
        let serverRow = edit.kind == .remove
        guard
            let row = PendingEditReplay.rowBetween(
                aboveRow: aboveRow, belowRow: belowRow, serverRow: serverRow,
                named: (names(edit.above, on: .above), names(edit.below, on: .below)))
        else { return nil }
        if serverRow, let removed = edit.removedPosition,
            PendingEditReplay.goesBackAtItsPosition(
                removed, above: above, below: below,
                firstRowFromRemoved: try store.firstPosition(from: removed, in: feed))
        {
            return .position(removed)
        }
        return .row(row)
    }

    /// Inserts `item` at `place` and returns its position.
    static func insert(
        _ item: EncodedItem, at place: Place, local: Bool, in store: PageStore, feed: inout FeedRecord
    ) throws -> Int64 {
        switch place {
        case .row(let row): try store.insertItem(item, atRow: row, local: local, in: &feed)
        case .position(let position): try store.insertItem(item, atPosition: position, local: local, in: &feed)
        }
    }
}
