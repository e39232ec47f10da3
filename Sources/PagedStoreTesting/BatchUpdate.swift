import Foundation
public import PagedStore

/// Applies a ``FeedChange`` to the rows it was computed from the way `UITableView.performBatchUpdates`
/// reads a batch, and throws a ``BatchUpdate/Mismatch`` wherever UIKit would raise an exception: the
/// check an app's own adapter tests (and PagedStore's property tests) run on every change.
///
/// Deleted sections, deleted rows, reloaded rows and move sources name previous index paths; inserted
/// sections, inserted rows and move destinations name new ones. Rows of an inserted section come from the
/// new data. Surviving sections keep their order and fill the new section indices that are not inserted;
/// in each of them, surviving rows keep their order and fill the slots no insertion or move takes.
///
/// ```swift
/// let applied = try BatchUpdate.apply(snapshot.change, to: previousIDs, new: snapshot.ids)
/// #expect(applied == snapshot.ids)   // the batch turns the old rows into the new ones
/// ```
public enum BatchUpdate {
    /// Why UIKit would refuse a batch: the same reason, in the same words where UIKit has them.
    public struct Mismatch: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong with the batch.
        public let description: String

        /// A mismatch described by `description`, to compare with one that ``BatchUpdate`` threw.
        public init(description: String) {
            self.description = description
        }
    }

    /// The rows of one section after applying `change` to `rows`, taking the rows UIKit asks the
    /// data source for (insertions) from `new`: equal to `new` exactly when the change is right.
    /// - Throws: ``Mismatch`` where UIKit would raise.
    public static func apply<ID: Hashable>(_ change: FeedChange, to rows: [ID], new: [ID]) throws -> [ID] {
        try apply(change, to: [rows], new: [new]).first ?? []
    }

    /// The sections after applying `change` to `rows`, taking the rows UIKit asks the data source for
    /// (insertions, inserted sections) from `new`: equal to `new` exactly when the change is right.
    /// - Throws: ``Mismatch`` where UIKit would raise.
    /// - Complexity: O(*n*) in the rows of both.
    public static func apply<ID: Hashable>(_ change: FeedChange, to rows: [[ID]], new: [[ID]]) throws -> [[ID]] {
        let old = rows
        if change.isFullReload { return new }
        let sections = try sectionMap(change, old: old, new: new)
        let edits = try RowEdits(change, old: old, new: new, sections: sections)
        var result = [[ID]]()
        for (target, rowsOfNew) in new.enumerated() {
            guard let source = sections.sourceOf[target] else {
                result.append(rowsOfNew)  // an inserted section: the table asks the data source
                continue
            }
            result.append(try edits.fill(section: target, from: source, old: old, new: new))
        }
        return result
    }

    /// Which previous section each new section continues (nil: inserted).
    private struct SectionMap {
        var sourceOf: [Int: Int] = [:]
        var deleted: IndexSet
        var inserted: IndexSet
    }

    private static func sectionMap<ID: Hashable>(_ change: FeedChange, old: [[ID]], new: [[ID]]) throws -> SectionMap {
        if let bad = change.deletedSections.first(where: { $0 >= old.count }) {
            throw Mismatch(description: "deleteSections(\(bad)): the previous snapshot has \(old.count) sections")
        }
        if let bad = change.insertedSections.first(where: { $0 >= new.count }) {
            throw Mismatch(description: "insertSections(\(bad)): the new snapshot has \(new.count) sections")
        }
        let survivors = old.indices.filter { !change.deletedSections.contains($0) }
        let targets = new.indices.filter { !change.insertedSections.contains($0) }
        guard survivors.count == targets.count else {
            throw Mismatch(
                description: "invalid number of sections: \(new.count) after the update, \(old.count) before, "
                    + "\(change.insertedSections.count) inserted, \(change.deletedSections.count) deleted")
        }
        var map = SectionMap(deleted: change.deletedSections, inserted: change.insertedSections)
        for (source, target) in zip(survivors, targets) { map.sourceOf[target] = source }
        return map
    }

    /// The row edits, checked and grouped by section.
    private struct RowEdits<ID: Hashable> {
        /// Previous rows that leave their section: deletions and move sources, by previous section.
        var leaving: [Int: Set<Int>] = [:]
        /// New rows that insertions and moves fill, by new section: the id each gets.
        var arriving: [Int: [Int: ID]] = [:]

        init(_ change: FeedChange, old: [[ID]], new: [[ID]], sections: SectionMap) throws {
            // A row of one snapshot that the batch may name: it exists there, and its section is not
            // the one the batch deletes (previous rows) or inserts (new rows) as a whole.
            func checkedRow(
                _ path: IndexPath, _ what: String, in rows: [[ID]], of snapshot: String, changedSections: IndexSet,
                _ sectionChange: String
            ) throws -> (section: Int, row: Int) {
                guard path.count == 2, rows.indices.contains(path[0]), rows[path[0]].indices.contains(path[1]) else {
                    throw Mismatch(description: "\(what) \(path): no such row in the \(snapshot) snapshot")
                }
                guard !changedSections.contains(path[0]) else {
                    throw Mismatch(description: "\(what) \(path): its section \(path[0]) is being \(sectionChange)")
                }
                return (path[0], path[1])
            }
            func oldRow(_ path: IndexPath, _ what: String) throws -> (section: Int, row: Int) {
                try checkedRow(path, what, in: old, of: "previous", changedSections: sections.deleted, "deleted")
            }
            func newRow(_ path: IndexPath, _ what: String) throws -> (section: Int, row: Int) {
                try checkedRow(path, what, in: new, of: "new", changedSections: sections.inserted, "inserted")
            }
            for path in change.deletedRows {
                let (section, row) = try oldRow(path, "deleteRows")
                guard leaving[section, default: []].insert(row).inserted else {
                    throw Mismatch(description: "deleteRows \(path): the row is deleted or moved twice")
                }
            }
            for path in change.insertedRows {
                let (section, row) = try newRow(path, "insertRows")
                guard arriving[section, default: [:]].updateValue(new[section][row], forKey: row) == nil else {
                    throw Mismatch(description: "insertRows \(path): the row is inserted twice")
                }
            }
            for move in change.movedRows {
                let from = try oldRow(move.from, "moveRow from")
                let to = try newRow(move.to, "moveRow to")
                guard leaving[from.section, default: []].insert(from.row).inserted else {
                    throw Mismatch(description: "moveRow from \(move.from): the row is deleted or moved twice")
                }
                let id = old[from.section][from.row]
                guard arriving[to.section, default: [:]].updateValue(id, forKey: to.row) == nil else {
                    throw Mismatch(description: "moveRow to \(move.to): the row is inserted or moved to twice")
                }
            }
            var reloaded = Set<IndexPath>()
            for path in change.reloadedRows {
                let (section, row) = try oldRow(path, "reloadRows")
                guard !leaving[section, default: []].contains(row), reloaded.insert(path).inserted else {
                    throw Mismatch(description: "reloadRows \(path): the row is deleted, moved or reloaded twice")
                }
            }
        }

        /// New section `target`'s rows: arrivals in their slots, `source`'s survivors in order in the rest.
        func fill(section target: Int, from source: Int, old: [[ID]], new: [[ID]]) throws -> [ID] {
            let leavingRows = leaving[source] ?? []
            let arrivals = arriving[target] ?? [:]
            let survivors = old[source].indices.filter { !leavingRows.contains($0) }
            guard survivors.count + arrivals.count == new[target].count else {
                throw Mismatch(
                    description: "invalid number of rows in section \(target): \(new[target].count) after the update, "
                        + "\(old[source].count) before in section \(source), \(arrivals.count) inserted or moved in, "
                        + "\(leavingRows.count) deleted or moved out")
            }
            var next = survivors.makeIterator()
            return new[target].indices.compactMap { row in
                if let id = arrivals[row] { return id }
                return next.next().map { old[source][$0] }
            }
        }
    }
}
