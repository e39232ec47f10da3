import Foundation

/// The rules of an item's pending edits made one after another (liked, then unliked, offline): which
/// edit may follow which, what the item shows, and what a rejection leaves of the later ones.
///
/// Each edit keeps the value before it (``PendingEditRecord/base``: the server's for the first) and
/// the value after it (``PendingEditRecord/edited``); the item shows the last one's. The outbox sends
/// an item's edits in order, one at a time, so only the first is ever settled. Pure: the edits come
/// in, edits come out, and ``PendingEditSettlement`` and ``FeedWriter`` write them.
enum PendingEditStack {
    /// The feed's pending edits by item, each item's in step order, items in the order of their first.
    static func stacks(_ edits: [PendingEditRecord]) -> [[PendingEditRecord]] {
        var order: [String] = []
        var byItem: [String: [PendingEditRecord]] = [:]
        for edit in edits {
            if byItem[edit.itemID] == nil { order.append(edit.itemID) }
            byItem[edit.itemID, default: []].append(edit)
        }
        return order.compactMap { byItem[$0]?.sorted { $0.step < $1.step } }
    }

    /// Why an edit of `kind` may not follow `stack` (the item's pending edits), or nil when it may.
    ///
    /// Only edits made by kind stack: the outbox sends them in order, while an edit made with a
    /// closure is settled by its own call, whose order against another's nobody knows. An insert
    /// can only be first (the item exists), and nothing follows a removal (the item is not shown).
    static func refusal(adding kind: PendingEditRecord.Kind, queued: Bool, after stack: [PendingEditRecord]) -> String?
    {
        guard let last = stack.last else { return nil }
        if !queued || stack.contains(where: { $0.queued == nil }) {
            return "has an edit waiting for its server call; wait for it before editing the item again"
        }
        if last.kind == .remove { return "is removed, waiting for its server call" }
        if kind == .insert { return "is in the feed already" }
        return nil
    }

    /// The later edits of an item that its rejected first edit takes with it, never sent, as
    /// dropped edits (kept in the outbox's history when queued, and reported): all of an insert's,
    /// which edit an item the server never had, shown on its row or detached from it; none of an
    /// update's, which go again on the value it restores.
    static func goingWithRejected(
        _ first: PendingEditRecord, later: [PendingEditRecord]
    ) -> [MalformedPendingEdit] {
        guard first.kind == .insert else { return [] }
        return later.map { MalformedPendingEdit($0, problem: "an edit of an item whose insert the server rejected") }
    }

    /// What is wrong with an item's edits as a file holds them (edited by hand, a faulty writer), or
    /// nil when edits made one after another can leave them so: an edit made with a closure is
    /// alone, an insert only first, a removal only last.
    static func problem(of stack: [PendingEditRecord]) -> String? {
        guard stack.count > 1 else { return nil }
        if stack.contains(where: { $0.queued == nil }) { return "one of several edits, made with a closure" }
        if stack.dropFirst().contains(where: { $0.kind == .insert }) { return "an insert after another edit" }
        if stack.dropLast().contains(where: { $0.kind == .remove }) { return "an edit after a removal" }
        return nil
    }

    /// What the stack needs after a write left its item's row as `stored` (see
    /// ``PendingEditReplay/step(for:stored:)``, given `combined`): as the one edit it amounts to,
    /// except that updates made on an insert the server now lists go again on the server's copy.
    static func step(
        for stack: [PendingEditRecord], combined: PendingEditRecord, stored: StoredItem?
    ) -> PendingEditReplay.Step {
        if combined.kind == .insert, let stored, let shown = combined.edited, stored.payload != shown,
            stack.contains(where: { $0.kind == .update })
        {
            return .reapply
        }
        return PendingEditReplay.step(for: combined, stored: stored)
    }

    /// The one edit a stack amounts to: a removal when its last edit removes the item, an insert
    /// when its first inserts it, an update otherwise; it shows the last edit's value, and keeps the
    /// first edit's base and the places its insert or removal named.
    static func combined(_ stack: [PendingEditRecord]) -> PendingEditRecord? {
        guard var combined = stack.first, let last = stack.last else { return nil }
        if last.kind == .remove {
            combined.kind = .remove
            (combined.above, combined.below) = (last.above, last.below)
        }
        combined.edited = last.edited
        return combined
    }

    /// A value an edit shows: its payload and the section it puts the item in.
    typealias Shown = (payload: Data, section: String?)

    /// How a feed carries an edit's change onto a value (its payload and section): its change run on
    /// the value (when the feed that made it is open), or nil when it does not know the change.
    typealias Carry = @Sendable (PendingEditRecord, Shown) throws -> Shown?

    /// Edits carried onto a new value before the first of them: `base` (a rejected edit's, or the
    /// server's new value of the row), each next onto the value the one before it now shows. An
    /// update's change is what `carry` makes of it on that value, else what it changed (see
    /// ``PayloadRebase``), and it keeps the item in the section it moved it to, if it moved it; a
    /// removal keeps the value as what its rollback puts back.
    /// - Returns: The edits, and the value the item now shows (nil when the last removes it).
    static func rebased(
        _ edits: [PendingEditRecord], onto base: Data, section: String?, carry: Carry = { _, _ in nil }
    ) rethrows -> (edits: [PendingEditRecord], shown: Shown?) {
        var value: Shown? = (base, section)
        var rebased: [PendingEditRecord] = []
        for var edit in edits {
            if edit.kind == .update, let edited = edit.edited, let before = value {
                let moved = edit.editedSection != edit.baseSection
                let carried =
                    try carry(edit, before)
                    ?? (
                        edit.base.map { PayloadRebase.rebase(edited, from: $0, onto: before.payload) } ?? edited,
                        moved ? edit.editedSection : before.section
                    )
                (edit.edited, edit.editedSection) = (carried.payload, carried.section)
            }
            (edit.base, edit.baseSection) = (value?.payload, value?.section)
            value = edit.kind == .remove ? nil : edit.edited.map { ($0, edit.editedSection) }
            rebased.append(edit)
        }
        return (rebased, value)
    }

    /// ``rebased(_:onto:section:carry:)`` with `carry` where it can run: when a change cannot run on
    /// the value (it does not decode for the model of the feed that made it), the edits go by what
    /// they changed.
    static func rebasedTryingCarry(
        _ edits: [PendingEditRecord], onto base: Data, section: String?, carry: Carry
    ) -> (edits: [PendingEditRecord], shown: Shown?) {
        (try? rebased(edits, onto: base, section: section, carry: carry))
            ?? rebased(edits, onto: base, section: section, carry: { _, _ in nil })
    }
}
