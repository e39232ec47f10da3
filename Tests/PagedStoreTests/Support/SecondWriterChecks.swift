import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// The checks of a feed that another `Feed` writes beside it.
enum SecondWriterChecks {
    /// Every snapshot's change turns the rows before it into its own rows, as UIKit applies a batch,
    /// and reloads every row whose post changed (where both hold every row: the ids of rows outside a
    /// window are unknown).
    static func everyChangeApplies(_ snapshots: [FeedSnapshot<Post>], _ context: String) {
        for (previous, next) in zip(snapshots, snapshots.dropFirst())
        where previous.rows.loadedRange.count == previous.rows.count && next.rows.loadedRange.count == next.rows.count {
            do {
                let applied = try BatchUpdate.apply(next.change, to: previous.sectionedIDs, new: next.sectionedIDs)
                #expect(applied == next.sectionedIDs, "\(context): the change does not give the new rows")
                let stale = try BatchUpdate.staleRows(next.change, from: previous.sectionedRows, to: next)
                #expect(stale.isEmpty, "\(context): rows \(stale) changed but \(next.change) does not reload them")
            } catch {
                Issue.record("\(context): UIKit would reject the change \(next.change): \(error)")
            }
        }
    }

    /// The snapshot's rows, content included, are the file's: as many rows, and each loaded row is
    /// the file's item at that row.
    static func rowsEqualTheFile(_ snapshot: FeedSnapshot<Post>, _ test: FeedTestCase, _ context: String) throws {
        let file = try test.postsOnDisk()
        #expect(
            snapshot.rows.count == file.count, "\(context): \(snapshot.rows.count) rows, the file has \(file.count)")
        let shown = snapshot.rows.loadedRange.map { snapshot.rows[$0] }
        let stored = snapshot.rows.loadedRange.map { file.indices.contains($0) ? file[$0] : nil }
        #expect(shown == stored, "\(context): the rows shown are not the file's")
    }
}
