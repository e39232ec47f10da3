import Foundation

/// The order of an item's queued edits as `pagedb` lists them: each waits for the edit of its item
/// listed before it (the outbox sends an item's edits one at a time, in order).
enum EditOrder {
    /// For each edit of `edits` (listed oldest first), the idempotency key of the edit of the same
    /// item listed before it, or nil for an item's first.
    static func waitsFor<Edit>(_ edits: [Edit], item: (Edit) -> String, key: (Edit) -> UUID?) -> [UUID?] {
        var last: [String: UUID] = [:]
        return edits.map { edit in
            let before = last[item(edit)]
            if let key = key(edit) { last[item(edit)] = key }
            return before
        }
    }

    /// When the edit is next tried: after the edit before it, or as ``Terminal/nextTry(_:now:)`` says.
    static func nextTry(waitingFor before: UUID?, nextAttemptAt: Date?) -> String {
        before == nil ? Terminal.nextTry(nextAttemptAt) : "after the edit before it"
    }
}
