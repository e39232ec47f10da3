import Foundation

/// How a live search's results changed between two reads of its window: the batch update that
/// takes a list from the old results to the new ones. Pure.
///
/// A search's results are not a feed's rows: no write records how they move (a post edited to
/// match enters, one edited not to leaves, a new post changes every rank a little), so the change
/// is the difference of the two windows, by identity, with each result's version telling a
/// changed result from one that only moved.
enum SearchResultsChange {
    /// One result of a window: its identity among the results and a version that changes when it
    /// does (its stored bytes).
    struct Entry: Equatable {
        var id: String
        var version: Data
    }

    /// The change from `old` to `new`, whose identities are each unique: rows of `old` that left
    /// are deleted, rows of `new` that came are inserted, rows in both whose order changed move,
    /// and rows in both whose version changed are reloaded where they stayed in place, and named
    /// in ``RowChange/reloadedIDs`` wherever they went.
    static func between(_ old: [Entry], _ new: [Entry]) -> RowChange {
        var change = RowChange()
        let difference = new.map(\.id).difference(from: old.map(\.id)).inferringMoves()
        var movedFrom = Set<Int>()
        for step in difference {
            switch step {
            case .remove(let offset, _, let destination):
                if let destination {
                    change.moved.append((from: offset, to: destination))
                    movedFrom.insert(offset)
                } else {
                    change.deleted.append(offset)
                }
            case .insert(let offset, _, let source):
                if source == nil { change.inserted.append(offset) }
            }
        }
        let newVersions = Dictionary(new.map { ($0.id, $0.version) }, uniquingKeysWith: { first, _ in first })
        for (row, entry) in old.enumerated() {
            guard let version = newVersions[entry.id], version != entry.version else { continue }
            change.reloadedIDs.append(entry.id)
            if !movedFrom.contains(row) { change.reloaded.append(row) }
        }
        change.deleted.sort()
        change.inserted.sort()
        change.moved.sort { $0.from < $1.from }
        return change
    }

    /// `change` in section 0, the one section of a list of results.
    static func feedChange(_ change: RowChange) -> FeedChange {
        FeedChange(
            deletedRows: change.deleted.map { [0, $0] }, insertedRows: change.inserted.map { [0, $0] },
            reloadedRows: change.reloaded.map { [0, $0] },
            movedRows: change.moved.map { FeedChange.Move(from: [0, $0.from], to: [0, $0.to]) },
            reconfiguredIDs: change.reloadedIDs)
    }
}
