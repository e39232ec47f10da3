import Foundation
import PagedStore

/// Applies a change to the previous rows the way `UITableView.performBatchUpdates` reads it, for
/// single-section feeds: deletions and move sources name previous rows, insertions and move
/// destinations name new rows, and every other row keeps its relative order.
enum ChangeApplier {
    struct Mismatch: Error, CustomStringConvertible {
        let description: String
    }

    /// The ids after applying `change` to `old`, taking inserted ids from `new`.
    static func apply(_ change: FeedChange, to old: [String], new: [String]) throws -> [String] {
        if change.isFullReload { return new }
        let deleted = Set(change.deletedRows.map { $0[1] })
        let moveSources = Set(change.movedRows.map { $0.from[1] })
        let reloaded = change.reloadedRows.map { $0[1] }
        guard deleted.count == change.deletedRows.count, deleted.allSatisfy({ $0 < old.count }),
            reloaded.allSatisfy({ $0 < old.count && !deleted.contains($0) && !moveSources.contains($0) })
        else { throw Mismatch(description: "deletions or reloads name rows the previous snapshot lacks") }
        var placed = [String?](repeating: nil, count: new.count)
        for row in change.insertedRows.map({ $0[1] }) {
            guard row < new.count, placed[row] == nil else { throw Mismatch(description: "bad insertion \(row)") }
            placed[row] = new[row]
        }
        for move in change.movedRows {
            guard move.to[1] < new.count, placed[move.to[1]] == nil else { throw Mismatch(description: "bad move") }
            placed[move.to[1]] = old[move.from[1]]
        }
        var survivors = old.indices.filter { !deleted.contains($0) && !moveSources.contains($0) }.map { old[$0] }
            .makeIterator()
        for row in placed.indices where placed[row] == nil {
            guard let next = survivors.next() else { throw Mismatch(description: "too few rows survive") }
            placed[row] = next
        }
        guard survivors.next() == nil else { throw Mismatch(description: "too many rows survive") }
        return placed.compactMap { $0 }
    }
}

extension FeedSnapshot {
    /// The ids of every row (all must be loaded).
    var ids: [String] { rows.indices.map { rows.id(at: $0) ?? "<not loaded>" } }
}
