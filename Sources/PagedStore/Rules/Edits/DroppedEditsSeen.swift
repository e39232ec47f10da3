import Foundation

/// Which drops of queued edits in the outbox's history a feed reports when it follows another
/// writer's write: those of its key recorded since it last looked, less the ones it reported
/// itself (its own writes report their drops as they commit).
///
/// A queued edit another store or process dropped (a rejected insert's stacked edits settled by
/// its outbox, `pagedb delete --drop-pending-edits`) reaches every open list of the feed as a
/// ``FeedEvent/Kind/pendingEditDropped``, by the file's record of it, as the rows do.
/// Pure: ``Feed`` reads the history and reports what it returns.
struct DroppedEditsSeen: Sendable {
    /// One drop, as the feed reported it and as the history keeps it.
    struct Drop: Hashable, Sendable {
        var itemID: String
        var idempotencyKey: String?
        var reason: String
    }

    /// The history's newest number the feed has looked at; nil when the file keeps no history.
    private(set) var mark: Int64?
    /// The drops of queued edits the feed reported from its own writes and has not met in the
    /// history yet, with how many times.
    private var reportedHere: [Drop: Int] = [:]

    init(mark: Int64?) { self.mark = mark }

    /// Notes the drops the feed reported from its own write: those of queued edits are in the
    /// history too, and are not reported again.
    mutating func reported(_ dropped: [MalformedPendingEdit]) {
        guard mark != nil else { return }
        for edit in dropped where edit.outboxKind != nil {
            reportedHere[
                Drop(itemID: edit.itemID, idempotencyKey: edit.idempotencyKey, reason: edit.problem), default: 0] +=
                1
        }
    }

    /// What to report of the history's rows numbered after ``mark`` (`found`, every feed's, in
    /// order): this feed's, less those it reported itself; the mark moves past them all.
    mutating func toReport(
        _ found: [(seq: Int64, feedKey: String, edit: MalformedPendingEdit)], feedKey: String
    ) -> [MalformedPendingEdit] {
        guard let seen = mark else { return [] }
        var report: [MalformedPendingEdit] = []
        for row in found where row.seq > seen && row.feedKey == feedKey {
            let drop = Drop(itemID: row.edit.itemID, idempotencyKey: row.edit.idempotencyKey, reason: row.edit.problem)
            if let count = reportedHere[drop] {
                reportedHere[drop] = count > 1 ? count - 1 : nil
            } else {
                report.append(row.edit)
            }
        }
        mark = max(seen, found.map(\.seq).max() ?? seen)
        return report
    }
}
