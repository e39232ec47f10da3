import Foundation

/// Pending edits that cannot be applied (a file edited by hand, a faulty writer): dropped and
/// reported, never written over the server's value.
extension Feed {
    /// The feed's pending edits that can be applied, read in the caller's write transaction; every
    /// other pending edit row (see ``MalformedPendingEdit``, and a payload that is not its item) is
    /// deleted and added to `dropped`, for ``reportDropped(_:)`` once the transaction committed.
    static func applicablePendingEdits(
        of feed: FeedRecord, in store: PageStore, codec: ItemCodec<Item>, dropped: inout [MalformedPendingEdit]
    ) throws -> [PendingEditRecord] {
        let rows = try store.pendingEditRows(of: feed)
        var unusable = rows.malformed
        var applicable: [PendingEditRecord] = []
        for edit in rows.edits {
            if let problem = unusablePayload(of: edit, codec: codec) {
                unusable.append(MalformedPendingEdit(itemID: edit.itemID, problem: problem))
            } else {
                applicable.append(edit)
            }
        }
        for stack in PendingEditStack.stacks(applicable) {
            if let problem = PendingEditStack.problem(of: stack), let first = stack.first {
                unusable.append(MalformedPendingEdit(itemID: first.itemID, problem: problem))
            }
        }
        // An item's edits stand on each other: one unusable, the item's others go with it.
        let unusableItems = Set(unusable.map(\.itemID))
        for itemID in unusableItems { try store.deletePendingEdits(itemID: itemID, in: feed) }
        dropped += unusable
        return applicable.filter { !unusableItems.contains($0.itemID) }
    }

    /// Reports each dropped pending edit as a ``FeedEvent/Kind/pendingEditDropped`` event.
    func reportDropped(_ dropped: [MalformedPendingEdit]) {
        for edit in dropped {
            let error = FeedError(
                .storage,
                message:
                    "The pending edit of the item \(edit.itemID.debugDescription) was dropped: it is \(edit.problem)",
                storageKind: .corrupt)
            report(.pendingEditDropped, nil, generation: activity.generation, error: error)
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
            if item.storedID != edit.itemID {
                return "an \(edit.kind.rawValue) whose \(name) payload is the item \(item.storedID.debugDescription)"
            }
        }
        return nil
    }
}
