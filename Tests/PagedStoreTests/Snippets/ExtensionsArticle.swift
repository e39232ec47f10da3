import Foundation
import PagedStore

// The code of the article "Sharing a cache with extensions", compiled: DocumentationSnippetTests
// checks that every Swift block of the article is here, character for character. The App Group
// block compiles on Apple platforms only, as it does in an app.

/// The widget's source: a read-only store never asks it for a page.
struct WidgetSource: PageSource {
    func fetch(_ request: PageRequest) async throws -> Page<Post> {
        Page(items: [], olderCursor: nil)
    }
}

#if canImport(Darwin)
/// The cache in the App Group container that the app and its extensions share.
func sharedCachePath() -> String? {
    FileManager.default
        .containerURL(forSecurityApplicationGroupIdentifier: "group.com.example.timeline")?
        .appendingPathComponent("feeds.sqlite").path
}
#endif

/// The widget: the app's cached rows, as the app last wrote them; it never writes.
func widgetPosts(at path: String) async throws -> [Post] {
    let store = try FeedStore(path: path, readOnly: true)
    let feed = try store.feed("home", source: WidgetSource(), policy: FeedPolicy(refreshOnOpen: .never))
    return await feed.snapshot.rows.loadedItems
}

/// The widget's store, or nil until the app has created and migrated the cache.
func widgetStore(at path: String) throws -> FeedStore? {
    do {
        return try FeedStore(path: path, readOnly: true)
    } catch let error as StorageError where error.kind == .cannotOpen || error.kind == .schemaTooOld {
        return nil
    }
}

/// An extension's list: a snapshot for every write of the feed, whichever process made it.
func follow(_ feed: Feed<Post>, show: (FeedSnapshot<Post>) -> Void) async {
    for await snapshot in await feed.snapshots {
        show(snapshot)
    }
}
