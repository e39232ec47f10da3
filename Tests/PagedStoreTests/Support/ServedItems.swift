import PagedStoreTesting
import TestSupport

@testable import PagedStore

extension ScriptedSource {
    /// A source whose one page is what `items` holds when it is asked: a test changes the server
    /// by changing `items`.
    static func serving(_ items: Locked<[Item]>) -> ScriptedSource<Item> {
        ScriptedSource<Item> { _ in Page(items: items.value, olderCursor: nil) }
    }
}

extension FeedStore {
    /// The feed `key`, refreshed, holding `items` as the server serves them (a test changes the
    /// server by changing `items`).
    func servedFeed<Item: FeedItem & Codable>(_ key: String, holding items: Locked<[Item]>) async throws -> Feed<Item> {
        let feed = try feed(key, source: ScriptedSource.serving(items), policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        return feed
    }

    /// "home" and "profile", refreshed, both holding the shared `items` as the server serves them.
    func homeAndProfile(
        holding items: Locked<[SharedToot]>
    ) async throws -> (home: Feed<SharedToot>, profile: Feed<SharedToot>) {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let home = try feed("home", source: ScriptedSource.serving(items), policy: policy)
        let profile = try feed("profile", source: ScriptedSource.serving(items), policy: policy)
        await home.refresh()
        await profile.refresh()
        return (home, profile)
    }
}
