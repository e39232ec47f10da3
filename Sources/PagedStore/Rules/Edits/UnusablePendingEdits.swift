import Foundation

/// Which pending edit rows cannot be applied, sent or rolled back, and which go with them: the rule
/// a feed reading its edits and an outbox settling one without the feed both follow, so that a file
/// edited by hand loses the same edits either way, each reported.
///
/// A row no edit can come from (see ``MalformedPendingEdit``) is unusable, and so is a stack in an
/// order no edits made one after another leave (``PendingEditStack/problem(of:)``). An item's edits
/// stand on each other's payloads: an unusable row whose payloads are unsound takes the item's
/// other edits with it; one whose payloads are sound (only its outbox part is wrong) goes alone.
enum UnusablePendingEdits {
    /// What goes, and what stays.
    struct Plan: Equatable {
        /// The edits that stay, oldest first as given: to apply, send or settle.
        var usable: [PendingEditRecord] = []
        /// Every row that goes, each naming its problem: for the outbox's history and the feed's
        /// events.
        var dropped: [MalformedPendingEdit] = []
        /// The items whose every shown edit goes.
        var itemsLeaving: Set<String> = []
        /// The rows that go alone, their item's other edits staying.
        var rowsLeavingAlone: [MalformedPendingEdit] = []
    }

    /// The plan for the well-formed `edits` (oldest first, any number of items) and the rows
    /// `malformed` beside them.
    static func plan(edits: [PendingEditRecord], malformed: [MalformedPendingEdit]) -> Plan {
        var unusable = malformed
        for stack in PendingEditStack.stacks(edits) {
            if let problem = PendingEditStack.problem(of: stack), let first = stack.first {
                unusable.append(MalformedPendingEdit(first, problem: problem))
            }
        }
        let itemsLeaving = Set(unusable.filter { !$0.payloadsSound }.map(\.itemID))
        let listed = Set(unusable.map { RowKey(itemID: $0.itemID, step: $0.step) })
        for edit in edits
        where itemsLeaving.contains(edit.itemID)
            && !listed.contains(RowKey(itemID: edit.itemID, step: Int64(edit.step)))
        {
            unusable.append(MalformedPendingEdit(edit, problem: MalformedPendingEdit.standingOnAnUnusableEdit))
        }
        return Plan(
            usable: edits.filter { !itemsLeaving.contains($0.itemID) }, dropped: unusable, itemsLeaving: itemsLeaving,
            rowsLeavingAlone: unusable.filter(\.payloadsSound))
    }

    /// A row of `pending_edit` among a feed's: its item and its step.
    private struct RowKey: Hashable {
        let itemID: String
        let step: Int64
    }
}
