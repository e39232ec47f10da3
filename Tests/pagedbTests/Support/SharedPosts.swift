import Foundation
import PagedStore
import PagedStoreTesting

/// Feeds whose items are one item across the file ("post"), written by the library as an app writes
/// them, for the commands that must spread the copy they write to every feed holding the item.
enum SharedPosts {
    /// A post shared by every feed of the name; its JSON is `{"id": …, "title": …}`.
    struct Post: FeedItem, Codable, Equatable {
        static let sharedItemType: String? = "post"
        let id: String
        var title: String
    }

    /// Opens `key` on `store` over `posts` (top first), written as the feed's first page.
    static func feed(_ key: String, _ posts: [Post], in store: FeedStore) async throws -> Feed<Post> {
        let feed = try open(key, posts, in: store)
        await feed.refresh()
        return feed
    }

    /// Opens `key` on `store`, whose source answers `posts` (top first), and fetches nothing: a test
    /// that follows the feed starts its list first.
    static func open(_ key: String, _ posts: [Post], in store: FeedStore) throws -> Feed<Post> {
        let source = ScriptedSource<Post> { _ in Page(items: posts, olderCursor: nil) }
        return try store.feed(key, source: source, policy: FeedPolicy(refreshOnOpen: .never))
    }

    /// Posts with the ids `ids`, each titled `title`.
    static func posts(_ ids: [String], titled title: String) -> [Post] {
        ids.map { Post(id: $0, title: title) }
    }

    /// The titles of the feed's rows as `pagedb items --json` prints them, by id.
    static func titles(of key: String, in db: String) async throws -> [String: String] {
        let rows = try PagedDBBinary.json(try await PagedDBBinary.run(["items", key, "--db", db, "--json"]))
        var titles: [String: String] = [:]
        for row in rows as? [[String: Any]] ?? [] {
            guard let id = row["id"] as? String, let payload = row["payload"] as? [String: Any] else { continue }
            titles[id] = payload["title"] as? String
        }
        return titles
    }
}
