import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// The checks of one snapshot's change against the snapshot before it, shared by the reference
/// models.
enum SnapshotChangeChecks {
    /// The change turns the previous rows into the next ones (as UIKit reads a batch) and reloads
    /// every row it keeps whose item changed, no id appears twice, and an exact change names every
    /// item whose content changed: a diffable data source keeps a cell while its id stays, whether
    /// its row moved or not.
    /// - Returns: Whether every check held.
    @discardableResult
    static func check<Item: FeedItem & Equatable>(
        from previous: FeedSnapshot<Item>, to next: FeedSnapshot<Item>, _ context: String
    ) -> Bool {
        var held = true
        func expect(_ condition: Bool, _ message: String) {
            guard !condition else { return }
            held = false
            Issue.record("\(context): \(message)")
        }
        do {
            let applied = try BatchUpdate.apply(next.change, to: previous.sectionedIDs, new: next.sectionedIDs)
            expect(applied == next.sectionedIDs, "the change does not give the new rows")
            let stale = try BatchUpdate.staleRows(next.change, from: previous.sectionedRows, to: next)
            expect(stale.isEmpty, "rows \(stale) changed but \(next.change) does not reload them")
        } catch {
            expect(false, "UIKit would reject the change: \(error)")
        }
        expect(Set(next.ids).count == next.ids.count, "an id appears twice")
        guard !next.change.isFullReload else { return held }
        let before = Dictionary(
            previous.rows.loadedRange.compactMap { row in previous.rows[row].map { ($0.storedID, $0) } },
            uniquingKeysWith: { first, _ in first })
        let changed = next.rows.loadedRange.compactMap { row -> String? in
            guard let item = next.rows[row], let old = before[item.storedID], old != item else { return nil }
            return item.storedID
        }
        let missing = Set(changed).subtracting(next.change.reconfiguredIDs)
        expect(
            missing.isEmpty,
            "changed items not reconfigured: \(missing) in \(next.change), ids \(previous.ids) -> \(next.ids)")
        return held
    }
}
