import Foundation

/// A change in flat row numbers, before sections are applied: what the engine computes.
struct RowChange: Sendable, Equatable {
    var deleted: [Int] = []
    var inserted: [Int] = []
    var reloaded: [Int] = []
    /// The ids of every row whose item changed: `reloaded`'s rows, and changed rows that moved (a
    /// batch lists those as a deletion and an insertion). ``FeedChange/reconfiguredIDs`` comes from it.
    var reloadedIDs: [String] = []
    var moved: [(from: Int, to: Int)] = []
    var isFullReload = false

    static let fullReload = RowChange(isFullReload: true)

    static func == (lhs: RowChange, rhs: RowChange) -> Bool {
        lhs.deleted == rhs.deleted && lhs.inserted == rhs.inserted && lhs.reloaded == rhs.reloaded
            && lhs.reloadedIDs == rhs.reloadedIDs
            && lhs.moved.elementsEqual(rhs.moved) { $0 == $1 } && lhs.isFullReload == rhs.isFullReload
    }

    /// How many rows this change adds, counting deletions as negative.
    var rowDelta: Int { inserted.count - deleted.count }

    /// Rows touched in any way, for events.
    var touchedRows: Int { deleted.count + inserted.count + reloaded.count + moved.count }
}
