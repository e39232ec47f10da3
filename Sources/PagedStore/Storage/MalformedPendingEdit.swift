import Foundation

/// A `pending_edit` row that no edit of this version writes (a file edited by hand, a faulty
/// writer): what ``PageStore/verify()`` names, and what a feed drops instead of applying.
package struct MalformedPendingEdit: Sendable, Equatable {
    /// The item's id, as text.
    package var itemID: String
    /// What is wrong with the row, as a phrase.
    package var problem: String

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
}
