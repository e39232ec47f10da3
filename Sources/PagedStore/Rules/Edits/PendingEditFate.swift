import Foundation

/// What becomes of a pending edit when the rows it shows on leave by a path that did not ask it: a
/// new ``FeedPolicy/cacheVersion`` clearing the feed, or its row no longer decoding.
///
/// An edit made by kind is the user's intent for the server, not a row: it stays queued, detached
/// from any row, and the outbox still sends it in its item's order (its argument is stored). It
/// shows on no row, since its payloads may be of a model the app no longer reads; confirmed, it is
/// deleted, and rejected, it has nothing to roll back. An edit made with a closure belongs to the
/// screen that made it: it goes, reported as ``FeedEvent/Kind/pendingEditDropped`` (its call, if
/// still running, is not stopped; its answer then finds nothing to settle).
///
/// Trims and evictions never meet a pending edit: they keep the rows pending edits name
/// (``TrimRule``, ``EvictionRule``). A feed deleted on request keeps its queued edits unless the
/// request names them too (`pagedb delete --drop-pending-edits`).
///
/// Pure: ``LeavingRowEdits`` carries it out in the write that removes the rows.
enum PendingEditFate: Equatable {
    /// Kept queued and sent, shown on no row.
    case detach
    /// Deleted, and reported with this reason (a phrase that follows "it is").
    case drop(reason: String)

    /// Why the rows leave.
    enum Loss: Equatable {
        /// A new cache version cleared the feed: its rows are of the app's previous model.
        case modelChanged
        /// The row no longer decodes (or the server's value under the edit does not).
        case undecodable
    }

    /// The fate of `edit` when its rows leave for `loss`.
    static func of(_ edit: PendingEditRecord, when loss: Loss) -> PendingEditFate {
        if edit.queued != nil { return .detach }
        return switch loss {
        case .modelChanged: .drop(reason: "an edit made with a closure on a row a new cache version cleared")
        case .undecodable: .drop(reason: "an edit made with a closure on a row that no longer decodes")
        }
    }
}
