public import Foundation
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
        if change.isFullReload { return new }
        return try origins(of: change, from: rows, to: new).enumerated().map { target, origins in
            origins.enumerated().map { row, origin in
                switch origin {
                case .inserted: new[target][row]
                case .kept(let from), .moved(let from): rows[from[0]][from[1]]
                }
            }
        }
    }

    /// The rows of the new snapshot that `change`, applied as a batch, would go on showing with the
    /// previous snapshot's content although it changed: a row the batch keeps in its place without
    /// reloading it (``FeedChange/reloadedRows``), or moves (with a move, or deleted and inserted
    /// again) without its id among ``FeedChange/reconfiguredIDs``. Empty when the change tells of every changed row (and for a
    /// full reload, which shows every row again).
    ///
    /// ```swift
    /// let stale = try BatchUpdate.staleRows(snapshot.change, from: previousItems, to: items, id: \.storedID)
    /// #expect(stale.isEmpty)   // every edited cell is told to update
    /// ```
    /// - Parameter id: A row's id, as ``FeedItem/storedID`` gives it: the rows are matched by it.
    /// - Throws: ``Mismatch`` where UIKit would raise.
    public static func staleRows<Row: Equatable>(
        _ change: FeedChange, from rows: [[Row]], to new: [[Row]], id: (Row) -> String
    ) throws -> [IndexPath] {
        if change.isFullReload { return [] }
        let origins = try origins(of: change, from: rows.map { $0.map(id) }, to: new.map { $0.map(id) })
        let reloaded = Set(change.reloadedRows)
        let reconfigured = Set(change.reconfiguredIDs)
        // A row deleted and inserted again (a move a batch cannot make) keeps its cell in a diffable
        // data source, which updates it only by its id among the reconfigured ones.
        let previousByID = Dictionary(rows.joined().map { (id($0), $0) }, uniquingKeysWith: { first, _ in first })
        var stale: [IndexPath] = []
        for (target, section) in origins.enumerated() {
            for (row, origin) in section.enumerated() {
                let now = new[target][row]
                switch origin {
                case .inserted:
                    if let before = previousByID[id(now)], before != now, !reconfigured.contains(id(now)) {
                        stale.append([target, row])
                    }
                case .kept(let from):
                    if rows[from[0]][from[1]] != now, !reloaded.contains(from) { stale.append([target, row]) }
                case .moved(let from):
                    if rows[from[0]][from[1]] != now, !reconfigured.contains(id(now)) { stale.append([target, row]) }
                }
            }
        }
        return stale
    }

    /// Where a row of the new snapshot comes from in a batch.
    private enum Origin {
        /// The data source gives it: an inserted row, or a row of an inserted section.
        case inserted
        /// A previous row the batch kept, in order among the rows that stay in its section.
        case kept(from: IndexPath)
        /// A previous row the batch moved here.
        case moved(from: IndexPath)
    }

    /// Each new row's origin, section by section, once the batch is checked as UIKit checks it.
    private static func origins<ID: Hashable>(
        of change: FeedChange, from old: [[ID]], to new: [[ID]]
    ) throws -> [[Origin]] {
        let sections = try sectionMap(change, old: old, new: new)
        let edits = try RowEdits(change, old: old, new: new, sections: sections)
        return try new.indices.map { target in
            guard let source = sections.sourceOf[target] else {
                return Array(repeating: .inserted, count: new[target].count)  // the table asks the data source
            }
            return try edits.fill(section: target, from: source, old: old, new: new)
        }
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
        /// New rows that insertions and moves fill, by new section: where each comes from.
        var arriving: [Int: [Int: Origin]] = [:]

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
                guard arriving[section, default: [:]].updateValue(.inserted, forKey: row) == nil else {
                    throw Mismatch(description: "insertRows \(path): the row is inserted twice")
                }
            }
            for move in change.movedRows {
                let from = try oldRow(move.from, "moveRow from")
                let to = try newRow(move.to, "moveRow to")
                guard leaving[from.section, default: []].insert(from.row).inserted else {
                    throw Mismatch(description: "moveRow from \(move.from): the row is deleted or moved twice")
                }
                guard arriving[to.section, default: [:]].updateValue(.moved(from: move.from), forKey: to.row) == nil
                else {
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

        /// New section `target`'s rows' origins: arrivals in their slots, `source`'s survivors in order
        /// in the rest.
        func fill(section target: Int, from source: Int, old: [[ID]], new: [[ID]]) throws -> [Origin] {
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
                if let arrival = arrivals[row] { return arrival }
                return next.next().map { .kept(from: [source, $0]) }
            }
        }
    }
}
