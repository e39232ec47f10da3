#if canImport(UIKit) && !os(watchOS)
public import UIKit

/// `NSDiffableDataSourceSnapshot<FeedSectionID, String>` is what ``FeedIdentifiers/build(into:reconfiguring:)``
/// fills: the collection or table view's snapshot, with no adapter code in the app.
extension NSDiffableDataSourceSnapshot: DiffableSnapshotBuilding
where SectionIdentifierType == FeedSectionID, ItemIdentifierType == String {}
#endif
