import PagedStore
import PagedStoreTesting
import Testing

/// The check every run of a live search's snapshots must pass: each change turns the results
/// before into the results after, as a table view's batch update reads it.
enum SearchSnapshotChecks {
    static func check<Item>(_ snapshots: [SearchSnapshot<Item>], _ context: String) {
        check(snapshots.map { ($0.results.map(\.listID), $0.change, $0.sequence) }, context)
    }

    /// The same check for a search feed's snapshots, whose rows are its entries.
    static func check<Item>(_ snapshots: [SearchFeedSnapshot<Item>], _ context: String) {
        check(snapshots.map { ($0.entries.map(\.id), $0.change, $0.sequence) }, context)
    }

    private static func check(_ lists: [(ids: [String], change: FeedChange, sequence: Int)], _ context: String) {
        for (previous, next) in zip(lists, lists.dropFirst()) {
            let (old, new) = (previous.ids, next.ids)
            #expect(Set(new).count == new.count, "\(context), snapshot \(next.sequence): an id is listed twice")
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
