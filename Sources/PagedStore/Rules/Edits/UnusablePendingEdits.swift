import Foundation

/// Which pending edit rows cannot be applied, sent or rolled back, and which go with them: the rule
/// a feed reading its edits and an outbox settling one without the feed both follow, so that a file
/// edited by hand loses the same edits either way, each reported.
///
/// A row no edit can come from (see ``MalformedPendingEdit``) is unusable, and so is a stack in an
/// order no edits made one after another leave (``PendingEditStack/problem(of:)``), all of it. An
/// item's later edits stand on its earlier ones' payloads: an unusable row whose payloads are
/// unsound takes the item's edits after it with it, and the ones before it stay (they stand on the
/// server's value, and one of them may be on its way to the server). A row whose payloads are sound
/// (only its outbox part is wrong) goes alone.
enum UnusablePendingEdits {
    /// What goes, and what stays.
    struct Plan: Equatable {
        /// The edits that stay, oldest first as given: to apply, send or settle.
        var usable: [PendingEditRecord] = []
        /// Every row that goes, each naming its problem: for the outbox's history and the feed's
        /// events.
        var dropped: [MalformedPendingEdit] = []
        /// For each item that loses a stretch of its stack, the first step that goes: its shown edits
        /// from that step on go.
        var cuts: [String: Int64] = [:]
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
        // A stack in the wrong order is cut at its first edit: all of it goes.
        var cuts: [String: Int64] = [:]
        for row in unusable where !row.payloadsSound {
            cuts[row.itemID] = min(cuts[row.itemID] ?? row.step, row.step)
        }
        let goes = { (edit: PendingEditRecord) in cuts[edit.itemID].map { Int64(edit.step) >= $0 } ?? false }
        let listed = Set(unusable.map { RowKey(itemID: $0.itemID, step: $0.step) })
        for edit in edits where goes(edit) && !listed.contains(RowKey(itemID: edit.itemID, step: Int64(edit.step))) {
            unusable.append(MalformedPendingEdit(edit, problem: MalformedPendingEdit.standingOnAnUnusableEdit))
        }
        return Plan(
            usable: edits.filter { !goes($0) }, dropped: unusable, cuts: cuts,
            rowsLeavingAlone: unusable.filter(\.payloadsSound))
    }

    /// A row of `pending_edit` among a feed's: its item and its step.
    private struct RowKey: Hashable {
        let itemID: String
        let step: Int64
    }
}
