import PagedStore
import PagedStoreTesting
import Testing

/// A post that is one item across the feeds of a store: the test item of sharing. It is searchable
/// by its words ("p3 r2": its id and revision), written with it, so that every test of sharing
/// keeps the index too, and search follows each edit.
struct SharedPost: FeedItem, Codable, Equatable, Hashable {
    static let sharedItemType: String? = "post"
    static let searchableFields = ["words"]
    let id: String
    var revision: Int = 0

    /// The text search finds it by.
    var words: String { Self.words(id: id, revision: revision) }

    /// The text of a post `id` at `revision`.
    static func words(id: String, revision: Int) -> String { "\(id) r\(revision)" }

    init(id: String, revision: Int = 0) {
        self.id = id
        self.revision = revision
    }

    private enum CodingKeys: String, CodingKey { case id, revision, words }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        revision = try container.decode(Int.self, forKey: .revision)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(revision, forKey: .revision)
        try container.encode(words, forKey: .words)
    }
}

/// A user whose ids collide with the posts' ("p1" is both): shared under another name.
struct SharedUser: FeedItem, Codable, Equatable, Hashable {
    static let sharedItemType: String? = "user"
    let id: String
    var revision: Int = 0
}

extension ModelServer {
    /// This server's list as shared posts: several servers (a home timeline, a profile) list the
    /// same posts by id.
    var sharedSource: ScriptedSource<SharedPost> { source { SharedPost(id: $0.id, revision: $0.revision) } }

    /// This server's list as users.
    var userSource: ScriptedSource<SharedUser> { source { SharedUser(id: $0.id, revision: $0.revision) } }

    /// This server's list, each post made an item of another type.
    func source<Item: FeedItem>(_ make: @escaping @Sendable (Post) -> Item) -> ScriptedSource<Item> {
        ScriptedSource { [self] request in
            let page = page(for: request)
            return Page(items: page.items.map(make), olderCursor: page.olderCursor, newerCursor: page.newerCursor)
        }
    }
}

extension Feed {
    /// The feed's first snapshot, from its current one on, for which `condition` holds: waits on
    /// its stream, so that a write another feed made is seen when it is followed, not polled.
    func firstSnapshot(where condition: @escaping @Sendable (FeedSnapshot<Item>) -> Bool) async -> FeedSnapshot<Item>? {
        for await snapshot in snapshots where condition(snapshot) { return snapshot }
        return nil
    }
}

extension FeedTestCase {
    /// Feeds "home" and "profile" of `server`'s shared posts, refreshed, with a revision of `p0` to 9
    /// queued in "home" and shown in both; the store is then closed, as an app killed offline.
    func queueASharedRevisionBeforeARelaunch(_ server: ModelServer) async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let store = try self.store()
        let home = try store.feed("home", source: server.sharedSource, policy: policy)
        let profile = try store.feed("profile", source: server.sharedSource, policy: policy)
        await home.refresh()
        await profile.refresh()
        try await home.enqueue("revise", id: "p0", argument: Revision(revision: 9)) { $0.revision = 9 }
        #expect(await profile.firstSnapshot { $0.rows[0]?.revision == 9 } != nil, "shown in both feeds")
        store.close()
    }
}
