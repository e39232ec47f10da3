import Foundation
import PagedStoreTesting
import TestSupport

@testable import PagedStore

/// A temporary cache file, and feeds opened on it as an app would (a new store is a relaunch).
struct FeedTestCase {
    let directory: TemporaryDirectory
    let path: String
    /// The clock of every store the test opens: moving it on makes an age pass without a sleep.
    let clock = MovableClock()

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("feeds.sqlite")
    }

    /// A new store on the file: what an app sees after a relaunch.
    func store() throws -> FeedStore { try FeedStore(path: path, clock: clock.storeClock) }

    func feed(
        _ source: ScriptedSource<Post>, policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never), key: String = "home",
        store: FeedStore? = nil, codec: ItemCodec<Post> = .json
    ) throws -> Feed<Post> {
        try (store ?? self.store()).feed(key, source: source, policy: policy, codec: codec)
    }

    /// The ids of the feed as a fresh store reads them from the file.
    func idsOnDisk(key: String = "home") throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { store in
            guard let feed = try store.feed(key: key) else { return [] }
            return try store.window(of: feed, from: .top, limit: Int.max).map(\.itemID)
        }
    }

    /// The feed's items as a fresh store reads them from the file, decoded: their content too.
    func postsOnDisk(key: String = "home") throws -> [Post] {
        try itemsOnDisk(of: Post.self, key: key)
    }

    /// The feed's items, of any JSON-coded type, as a fresh store reads them from the file (or
    /// `reader`, a connection a test keeps open for many reads).
    func itemsOnDisk<Item: FeedItem & Codable>(
        of type: Item.Type, key: String, reader: DatabaseQueue? = nil
    ) throws -> [Item] {
        let queue = try reader ?? DatabaseQueue(path: path)
        let rows = try queue.read { store in
            guard let feed = try store.feed(key: key) else { return [StoredItem]() }
            return try store.window(of: feed, from: .top, limit: Int.max)
        }
        return try rows.map { try ItemCodec<Item>.json.decode($0.payload) }
    }

    /// The feed's stored record, read by a fresh connection.
    func recordOnDisk(key: String = "home") throws -> FeedRecord? {
        try DatabaseQueue(path: path).read { try $0.feed(key: key) }
    }
}
