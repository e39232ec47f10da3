import Foundation

/// Pending edits that cannot be applied (a file edited by hand, a faulty writer, the app's model
/// changed): never written over the server's value. An edit whose payloads the app cannot read goes
/// as its row would (``PendingEditFate``: a queued one stays queued, shown on no row); a row no edit
/// can come from is dropped and reported.
extension Feed {
    /// The feed's pending edits that can be applied, read in the caller's write transaction; every
    /// other pending edit row (see ``MalformedPendingEdit``, and a payload that is not its item) is
    /// detached or deleted, the deleted ones added to `dropped`, for ``reportDropped(_:)`` once the
    /// transaction committed; dropped at `now`. With `itemID`, only that item's edits are read and
    /// looked at: a settlement's cost follows the item's stack, not the feed's edits. The server's
    /// copies under dropped updates of shared items are added to `restored`, for the caller to
    /// spread (see ``LeavingRowEdits/rowsLeave(_:item:in:store:at:restoring:)``).
    static func applicablePendingEdits(
        of feed: FeedRecord, item itemID: String? = nil, in store: PageStore, codec: ItemCodec<Item>,
        dropped: inout [MalformedPendingEdit], restoring restored: inout [EncodedItem], at now: Date
    ) throws -> [PendingEditRecord] {
        let rows = try store.pendingEditRows(of: feed, item: itemID)
        var applicable: [PendingEditRecord] = []
        var unreadableItems = Set<String>()
        for edit in rows.edits {
            if unusablePayload(of: edit, codec: codec) != nil {
                unreadableItems.insert(edit.itemID)
            } else {
                applicable.append(edit)
            }
        }
        // The item's edits stand on each other's payloads: they leave together, as with its row.
        for itemID in unreadableItems {
            dropped += try LeavingRowEdits.rowsLeave(
                .undecodable, item: itemID, in: feed, store: store, at: now, restoring: &restored)
        }
        applicable.removeAll { unreadableItems.contains($0.itemID) }
        // Detached rows nothing can send go alone: nothing shows them.
        let unreadableDetached = try store.unreadableDetachedEdits(of: feed).filter {
            itemID == nil || $0.itemID == itemID
        }
        let plan = UnusablePendingEdits.plan(
            edits: applicable,
            malformed: rows.malformed.filter { !unreadableItems.contains($0.itemID) } + unreadableDetached)
        dropped += try LeavingRowEdits.drop(plan, of: feed, in: store, at: now)
        return plan.usable
    }

    /// Reports each pending edit this feed's write dropped as a ``FeedEvent/Kind/pendingEditDropped``
    /// event (and notes the queued ones, which the followed history holds too).
    func reportDropped(_ dropped: [MalformedPendingEdit]) {
        dropsSeen.reported(dropped)
        reportDropEvents(dropped)
    }

    /// Reports each dropped pending edit as a ``FeedEvent/Kind/pendingEditDropped`` event: this
    /// feed's, or another writer's the feed found in the history (see ``DroppedEditsSeen``).
    func reportDropEvents(_ dropped: [MalformedPendingEdit]) {
        for event in Self.droppedEvents(dropped, generation: activity.generation) {
            report(event.kind, nil, generation: event.generation, error: event.error, itemIDs: event.itemIDs)
        }
    }

    /// The ``FeedEvent/Kind/pendingEditDropped`` event of each dropped pending edit.
    static func droppedEvents(_ dropped: [MalformedPendingEdit], generation: Int64) -> [FeedEvent] {
        dropped.map { edit in
            let error = FeedError(
                .storage,
                message:
                    "The pending edit of the item \(edit.itemID.debugDescription) was dropped: it is \(edit.problem)",
                storageKind: .corrupt)
            return FeedEvent(
                kind: .pendingEditDropped, request: nil, generation: generation, rowsChanged: 0, duration: nil,
                error: error, itemIDs: [edit.itemID])
        }
    }

    /// What in `edit` is not an item of its row, or nil: an edit writes its payloads as that item (the
    /// shown one, or the server's on a rollback), and a payload the codec cannot decode would stop the
    /// feed opening, one of another item would show a second row with that item's id.
    private static func unusablePayload(of edit: PendingEditRecord, codec: ItemCodec<Item>) -> String? {
        for (payload, name) in [(edit.edited, "shown"), (edit.base, "server")] {
            guard let payload else { continue }
            guard let item = try? codec.decode(payload) else {
                return "an \(edit.kind.rawValue) whose \(name) payload cannot be decoded"
            }
            let id = codec.payloadID.map { $0(payload) } ?? item.storedID
            if let id, id != edit.itemID {
                return "an \(edit.kind.rawValue) whose \(name) payload is the item \(id.debugDescription)"
            }
        }
        return nil
    }
}
