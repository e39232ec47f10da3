#if !canImport(UIKit)
import Foundation
import PagedStore

// The few UIKit names the article "Using PagedStore with UIKit" uses, with UIKit's shapes, so its
// examples compile on Linux: what they check is PagedStore's side. On iOS the real UIKit compiles them.

@MainActor class UITableView {
    enum RowAnimation { case fade, top, none }
    func performBatchUpdates(_ updates: () -> Void, completion: ((Bool) -> Void)? = nil) { updates() }
    func deleteSections(_ sections: IndexSet, with animation: RowAnimation) {}
    func insertSections(_ sections: IndexSet, with animation: RowAnimation) {}
    func deleteRows(at indexPaths: [IndexPath], with animation: RowAnimation) {}
    func insertRows(at indexPaths: [IndexPath], with animation: RowAnimation) {}
    func reloadRows(at indexPaths: [IndexPath], with animation: RowAnimation) {}
    func reconfigureRows(at indexPaths: [IndexPath]) {}
    func moveRow(at indexPath: IndexPath, to newIndexPath: IndexPath) {}
    func reloadData() {}
}

class UITableViewCell {}
class UICollectionView {}
class UICollectionViewCell {}

struct NSDiffableDataSourceSnapshot<SectionIdentifierType: Hashable, ItemIdentifierType: Hashable> {
    mutating func appendSections(_ identifiers: [SectionIdentifierType]) {}
    mutating func appendItems(_ identifiers: [ItemIdentifierType], toSection sectionIdentifier: SectionIdentifierType?)
    {}
    mutating func reconfigureItems(_ identifiers: [ItemIdentifierType]) {}
}

extension NSDiffableDataSourceSnapshot: DiffableSnapshotBuilding
where SectionIdentifierType == FeedSectionID, ItemIdentifierType == String {}

@MainActor class UICollectionViewDiffableDataSource<SectionIdentifierType: Hashable, ItemIdentifierType: Hashable> {
    typealias CellProvider = (UICollectionView, IndexPath, ItemIdentifierType) -> UICollectionViewCell?
    init(collectionView: UICollectionView, cellProvider: @escaping CellProvider) {}
    func apply(
        _ snapshot: NSDiffableDataSourceSnapshot<SectionIdentifierType, ItemIdentifierType>,
        animatingDifferences: Bool = true
    ) async {}
}
#endif
