public import Foundation

extension FeedSnapshot {
    /// The flat row of `indexPath` (`[section, row]`), or nil when the snapshot has no such row: what
    /// a UIKit data source passes to ``Feed/enqueueRowDidAppear(_:)`` and reads ``rows`` with.
    public func row(at indexPath: IndexPath) -> Int? {
        guard indexPath.count == 2, sections.indices.contains(indexPath[0]) else { return nil }
        let section = sections[indexPath[0]]
        guard (0..<section.rowCount).contains(indexPath[1]) else { return nil }
        return section.firstRow + indexPath[1]
    }
}
