public import Foundation

/// How one snapshot's rows differ from the previous snapshot's, as a table or collection view's
/// batch update reads it.
///
/// Deletions and reloads name rows of the previous snapshot, insertions name rows of the new one,
/// and moves go from a previous row to a new row: pass them straight to
/// `UITableView.performBatchUpdates(_:)`. Index paths are `[section, row]`, as
/// `IndexPath(row:section:)` builds them.
///
/// ```swift
/// tableView.performBatchUpdates {
///     tableView.deleteSections(change.deletedSections, with: .fade)
///     tableView.insertSections(change.insertedSections, with: .fade)
///     tableView.deleteRows(at: change.deletedRows, with: .fade)
///     tableView.insertRows(at: change.insertedRows, with: .top)
///     tableView.reloadRows(at: change.reloadedRows, with: .none)
///     for move in change.movedRows { tableView.moveRow(at: move.from, to: move.to) }
/// }
/// ```
public struct FeedChange: Sendable, Equatable {
    /// A row that moved: from its index path in the previous snapshot to its index path in the new one.
    public struct Move: Sendable, Equatable {
        /// The row's index path in the previous snapshot.
        public var from: IndexPath
        /// The row's index path in the new snapshot.
        public var to: IndexPath

        /// A move from `from` in the previous snapshot to `to` in the new one.
        public init(from: IndexPath, to: IndexPath) {
            self.from = from
            self.to = to
        }
    }

    /// Rows of the previous snapshot that are gone.
    public var deletedRows: [IndexPath]
    /// Rows of the new snapshot that are new.
    public var insertedRows: [IndexPath]
    /// Rows of the previous snapshot whose item changed in place.
    public var reloadedRows: [IndexPath]
    /// The ids (as ``FeedItem/storedID`` gives them) of rows whose item changed while their identity
    /// did not: pass them to `NSDiffableDataSourceSnapshot.reconfigureItems(_:)`, which updates the
    /// cell in place and keeps its state, where a reload replaces it.
    ///
    /// Every id here names a row of both snapshots. It covers the rows of ``reloadedRows`` and also
    /// every changed row that moved, within its section or to another one (a batch lists such a row
    /// as a deletion and an insertion, which gives it a new cell; a diffable data source sees the id
    /// move and keeps the cell, so it needs the id here). With ``isFullReload`` it may be empty:
    /// reconfigure every row then.
    public var reconfiguredIDs: [String]
    /// Rows that moved.
    public var movedRows: [Move]
    /// Sections of the previous snapshot that are gone (their rows are not listed in ``deletedRows``).
    public var deletedSections: IndexSet
    /// Sections of the new snapshot that are new (their rows are not listed in ``insertedRows``).
    public var insertedSections: IndexSet
    /// Whether the list must be reloaded as a whole (the rows changed in a way no batch describes well,
    /// such as a refresh that replaced the feed).
    public var isFullReload: Bool

    /// Creates a change, for tests and previews of code that applies changes (the engine builds the
    /// ones it emits).
    public init(
        deletedRows: [IndexPath] = [], insertedRows: [IndexPath] = [], reloadedRows: [IndexPath] = [],
        movedRows: [Move] = [], reconfiguredIDs: [String] = [], deletedSections: IndexSet = IndexSet(),
        insertedSections: IndexSet = IndexSet(), isFullReload: Bool = false
    ) {
        self.deletedRows = deletedRows
        self.insertedRows = insertedRows
        self.reloadedRows = reloadedRows
        self.movedRows = movedRows
        self.reconfiguredIDs = reconfiguredIDs
        self.deletedSections = deletedSections
        self.insertedSections = insertedSections
        self.isFullReload = isFullReload
    }

    /// A change that reloads the whole list.
    public static let fullReload = FeedChange(isFullReload: true)

    /// No change at all (a state change only).
    public static let none = FeedChange()

    /// Whether nothing changed in the rows.
    public var isEmpty: Bool {
        !isFullReload && deletedRows.isEmpty && insertedRows.isEmpty && reloadedRows.isEmpty && movedRows.isEmpty
            && deletedSections.isEmpty && insertedSections.isEmpty
    }
}

extension IndexPath {
    /// `[section, row]`, the layout of UIKit's `IndexPath(row:section:)`, which Linux lacks.
    init(section: Int, row: Int) {
        self.init(indexes: [section, row])
    }
}
