import Foundation

/// A `pending_edit` row that no edit of this version writes (a file edited by hand, a faulty
/// writer): what ``PageStore/verify()`` names, and what a feed drops instead of applying.
package struct MalformedPendingEdit: Sendable, Equatable {
    /// The item's id, as text.
    package var itemID: String
    /// What is wrong with the row, as a phrase.
    package var problem: String
    /// The row's place among its item's edits, as the file has it.
    package var step: Int64 = 0
    /// The outbox's columns as the row has them (nil for a closure edit): what the outbox's history of
    /// drops keeps.
    package var outboxKind: String? = nil
    package var argument: String? = nil
    package var idempotencyKey: String? = nil
    /// Whether only its outbox part is wrong: its payloads are an edit's, so the item's other edits,
    /// which stand on them, stay when it goes.
    package var payloadsSound = false

    /// What is wrong with a row of `kind` holding these payloads, or nil when an edit can come from it.
    ///
    /// Each kind needs the payloads it writes: an update shows `edited` and rolls back to `base`, an
    /// insert shows `edited`, a remove puts `base` back. Without them, applying or rolling back the
    /// edit could only write something other than the server's value (an empty item, say).
    static func problem(kind: String?, base: Data?, edited: Data?) -> String? {
        switch kind.flatMap(PendingEditRecord.Kind.init(rawValue:)) {
        case nil: "its kind \((kind ?? "NULL").debugDescription) is none of update, insert and remove"
        case .update where edited == nil: "an update without the payload it shows"
        case .update where base == nil: "an update without the server's payload to roll back to"
        case .insert where edited == nil: "an insert without its item's payload"
        case .remove where base == nil: "a remove without the server's payload to put back"
        case .update, .insert, .remove: nil
        }
    }

    /// What is wrong with the outbox's part of a row, or nil when the outbox can send it: an edit made
    /// by kind (`outboxKind` set) needs the idempotency key it was made with, a UUID. Without one it
    /// could only be sent under a key the server never saw, or never; and it would hold back every
    /// later edit of its item.
    static func problem(outboxKind: String?, idempotencyKey: String?) -> String? {
        guard outboxKind != nil, idempotencyKey.flatMap(UUID.init(uuidString:)) == nil else { return nil }
        return "a queued edit whose idempotency key \((idempotencyKey ?? "NULL").debugDescription) is not a UUID"
    }
}

extension MalformedPendingEdit {
    /// The problem of an edit dropped because another edit of its item is: each stands on the
    /// others' payloads.
    static let standingOnAnUnusableEdit = "an edit standing on another edit of its item that cannot be applied"

    /// A well-formed `edit` that cannot be applied all the same, for `problem`.
    init(_ edit: PendingEditRecord, problem: String) {
        self.init(
            itemID: edit.itemID, problem: problem, step: Int64(edit.step), outboxKind: edit.queued?.kind,
            argument: edit.queued.map { String(decoding: $0.argument, as: UTF8.self) },
            idempotencyKey: edit.queued?.idempotencyKey.uuidString)
    }
}
