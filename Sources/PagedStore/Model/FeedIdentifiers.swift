/// The identifiers of every row of one snapshot, section by section: what a diffable data source
/// (`NSDiffableDataSourceSnapshot`) needs.
///
/// Item identifiers are the ids the cache stores (``FeedItem/storedID``), unique within a feed by
/// construction: the cache's primary key is the feed and the id, and every write drops or moves a
/// repeated id instead of storing it twice. Section identifiers are ``FeedSectionID``s, unique too,
/// even when one section key heads several runs of rows.
///
/// ```swift
/// for await snapshot in await feed.snapshots {
///     // nil: the feed has moved on, and the newer snapshot is next in the stream.
///     guard let identifiers = try await feed.identifiers(of: snapshot) else { continue }
///     var diffable = NSDiffableDataSourceSnapshot<FeedSectionID, String>()
///     identifiers.build(into: &diffable, reconfiguring: snapshot.change)
///     await dataSource.apply(diffable, animatingDifferences: true)
/// }
/// ```
public struct FeedIdentifiers: Sendable, Equatable {
    /// The ``FeedSnapshot/sequence`` of the snapshot these are the rows of.
    public let sequence: Int
    /// Every row's id, top first.
    public let all: [String]
    /// The snapshot's sections, whose rows ``all`` lists in order.
    public let sections: [FeedSection]

    /// Creates the identifiers of a snapshot's rows: `all` in display order, grouped by `sections`.
    public init(sequence: Int, all: [String], sections: [FeedSection]) {
        self.sequence = sequence
        self.all = all
        self.sections = sections
    }

    /// The sections' identifiers, top first.
    public var sectionIDs: [FeedSectionID] {
        var seen: [String?: Int] = [:]
        return sections.map { section in
            let occurrence = seen[section.key, default: 0]
            seen[section.key] = occurrence + 1
            return FeedSectionID(key: section.key, occurrence: occurrence)
        }
    }

    /// The ids of section `index`'s rows.
    public func itemIDs(inSection index: Int) -> ArraySlice<String> {
        guard sections.indices.contains(index) else { return [] }
        let section = sections[index]
        let rows = section.firstRow..<(section.firstRow + section.rowCount)
        return rows.clamped(to: all.indices).isEmpty ? [] : all[rows.clamped(to: all.indices)]
    }

    /// Appends every section and its rows to an empty diffable snapshot, and reconfigures the rows
    /// `change` names (``FeedChange/reconfiguredIDs``), so cells of changed items update in place.
    ///
    /// On a full reload the engine does not know which items changed: every row is reconfigured.
    public func build<Snapshot: DiffableSnapshotBuilding>(
        into snapshot: inout Snapshot, reconfiguring change: FeedChange = .none
    ) {
        let sectionIDs = self.sectionIDs
        snapshot.appendSections(sectionIDs)
        for (index, id) in sectionIDs.enumerated() {
            snapshot.appendItems(Array(itemIDs(inSection: index)), toSection: id)
        }
        let reconfigured = change.isFullReload ? all : change.reconfiguredIDs
        if !reconfigured.isEmpty { snapshot.reconfigureItems(reconfigured) }
    }
}

/// The identity of one section in a diffable data source: its key, and which run of that key it is
/// (a key can head several sections: runs of equal keys separated by others).
public struct FeedSectionID: Hashable, Sendable {
    /// The section key of its rows (nil for a feed without sections).
    public let key: String?
    /// 0 for the first section with this key from the top, 1 for the second, and so on.
    public let occurrence: Int

    /// Creates a section identifier.
    public init(key: String?, occurrence: Int) {
        self.key = key
        self.occurrence = occurrence
    }
}

/// What ``FeedIdentifiers/build(into:reconfiguring:)`` needs of a diffable snapshot: the shape of
/// `NSDiffableDataSourceSnapshot<FeedSectionID, String>`, which conforms on Apple platforms.
public protocol DiffableSnapshotBuilding {
    /// Appends sections, in order.
    mutating func appendSections(_ identifiers: [FeedSectionID])
    /// Appends items to a section.
    mutating func appendItems(_ identifiers: [String], toSection sectionIdentifier: FeedSectionID?)
    /// Marks items whose content changed, for their cells to update in place.
    mutating func reconfigureItems(_ identifiers: [String])
}
