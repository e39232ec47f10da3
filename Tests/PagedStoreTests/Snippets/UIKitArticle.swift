import Foundation
import PagedStore

#if canImport(UIKit)
import UIKit
#endif

// The code of the article "Using PagedStore with UIKit", compiled: DocumentationSnippetTests checks
// that every Swift block of the article is here, character for character.

/// The app's networking, as the article's examples call it.
struct API: Sendable {
    func like(_ id: String) async throws {}
}

/// The app's cell configuration, as the article's examples call it.
@MainActor func configure(_ cell: UICollectionViewCell, with post: Post?) {}
@MainActor func makeCell(_ collectionView: UICollectionView, _ indexPath: IndexPath) -> UICollectionViewCell {
    UICollectionViewCell()
}

// Article: begin diffable
@MainActor final class TimelineController {
    let feed: Feed<Post>
    let dataSource: UICollectionViewDiffableDataSource<FeedSectionID, String>
    var shown: FeedSnapshot<Post>?

    init(feed: Feed<Post>, collectionView: UICollectionView) {
        self.feed = feed
        var shown: () -> FeedSnapshot<Post>? = { nil }
        dataSource = UICollectionViewDiffableDataSource(collectionView: collectionView) { view, indexPath, _ in
            let cell = makeCell(view, indexPath)
            let snapshot = shown()
            let post = snapshot?.row(at: indexPath).flatMap { snapshot?.rows[$0] }
            configure(cell, with: post)  // nil: outside the loaded window, show a placeholder
            return cell
        }
        shown = { [weak self] in self?.shown }
    }

    func follow() async throws {
        for await snapshot in await feed.snapshots {
            // nil: the feed moved on, and its newer snapshot is next in the stream.
            guard let identifiers = try await feed.identifiers(of: snapshot) else { continue }
            shown = snapshot
            var diffable = NSDiffableDataSourceSnapshot<FeedSectionID, String>()
            identifiers.build(into: &diffable, reconfiguring: snapshot.change)
            await dataSource.apply(diffable, animatingDifferences: !snapshot.change.isFullReload)
        }
    }
}
// Article: end diffable

// Article: begin batch
@MainActor func apply(_ change: FeedChange, to tableView: UITableView) {
    guard !change.isFullReload else { return tableView.reloadData() }
    tableView.performBatchUpdates {
        tableView.deleteSections(change.deletedSections, with: .fade)
        tableView.insertSections(change.insertedSections, with: .fade)
        tableView.deleteRows(at: change.deletedRows, with: .fade)
        tableView.insertRows(at: change.insertedRows, with: .top)
        tableView.reconfigureRows(at: change.reloadedRows)  // keeps the cells; reloadRows replaces them
        for move in change.movedRows { tableView.moveRow(at: move.from, to: move.to) }
    }
}
// Article: end batch

// Article: begin appear
@MainActor func willDisplay(_ indexPath: IndexPath, of snapshot: FeedSnapshot<Post>, feed: Feed<Post>) {
    // Synchronous and in order: no Task per cell.
    if let row = snapshot.row(at: indexPath) { feed.enqueueRowDidAppear(row) }
}
// Article: end appear

// Article: begin like
func like(_ post: Post, in feed: Feed<Post>, api: API) async {
    do {
        try await feed.edit(id: post.id) { post in
            post.revision += 1  // shown at once
        } commit: { post in
            try await api.like(post.id)  // rolled back if this throws
        }
    } catch {
        // The row shows the server's value again; tell the user.
    }
}
// Article: end like

// Article: begin close
func signOut(_ store: FeedStore) throws {
    store.close()  // feeds still referenced now fail with StorageError.Kind.closed
    try FileManager.default.removeItem(atPath: store.path)
}
// Article: end close
