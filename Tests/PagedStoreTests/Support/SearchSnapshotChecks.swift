import PagedStore
import PagedStoreTesting
import Testing

/// The check every run of a live search's snapshots must pass: each change turns the results
/// before into the results after, as a table view's batch update reads it.
enum SearchSnapshotChecks {
    static func check<Item>(_ snapshots: [SearchSnapshot<Item>], _ context: String) {
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) {
            let old = previous.results.map(\.listID)
            let new = next.results.map(\.listID)
            do {
                let applied = try BatchUpdate.apply(next.change, to: [old], new: [new])
                #expect(
                    applied == [new], "\(context), snapshot \(next.sequence): the change does not give the new results")
            } catch {
                Issue.record("\(context), snapshot \(next.sequence): \(error)")
            }
        }
    }
}
