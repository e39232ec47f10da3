import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// `pagedb show` on feeds that share their items: the name and how many rows other feeds hold too.
@Suite(.limit(minutes: 3), .plainRunOnly) struct SharedItemsCommandTests {
    struct SharedPost: FeedItem, Codable {
        static let sharedItemType: String? = "post"
        let id: String
        var revision = 0

        init(id: String, revision: Int = 0) {
            self.id = id
            self.revision = revision
        }
    }

    /// Opens `key` over a list of `ids` on `store`.
    static func feed(_ key: String, _ ids: [String], in store: FeedStore) throws -> Feed<SharedPost> {
        let source = ScriptedSource<SharedPost> { _ in Page(items: ids.map { SharedPost(id: $0) }, olderCursor: nil) }
        return try store.feed(key, source: source, policy: FeedPolicy(refreshOnOpen: .never))
    }

    @Test func showSaysTheNameAFeedSharesUnderAndHowManyOfItsRowsOtherFeedsHold() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let store = try FeedStore(path: db)
        for (key, ids) in [("home", ["a", "b", "c", "d"]), ("profile", ["b", "d", "x"])] {
            await (try Self.feed(key, ids, in: store)).refresh()
        }
        store.close()
        let text = try await PagedDBBinary.run(["show", "home", "--db", db])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("shared as:  post (2 of its rows are in other feeds too)"))
        let json = try #require(
            try PagedDBBinary.json(try await PagedDBBinary.run(["show", "profile", "--db", db, "--json"]))
                as? [String: Any])
        #expect(json["shared_as"] as? String == "post")
        #expect(json["rows_in_other_feeds"] as? Int == 2)
    }

    @Test func aFeedWhoseItemsAreItsOwnSaysNothingOfSharing() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let items = try scratch.file("items.json", #"[{"id":"a"}]"#)
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", items]).status == 0)
        let text = try await PagedDBBinary.run(["show", "home", "--db", db])
        #expect(!text.stdout.contains("shared as"))
        let json = try #require(
            try PagedDBBinary.json(try await PagedDBBinary.run(["show", "home", "--db", db, "--json"]))
                as? [String: Any])
        #expect(json["shared_as"] is NSNull)
    }

    @Test func rowsSeededIntoASharedFeedAreSharedToo() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let store = try FeedStore(path: db)
        let home = try Self.feed("home", ["a", "b"], in: store)
        await home.refresh()
        await (try Self.feed("profile", ["x"], in: store)).refresh()
        store.close()
        let items = try scratch.file("items.json", #"[{"id":"b","revision":0}]"#)
        let seeded = try await PagedDBBinary.run(["seed", "profile", "--db", db, "--file", items])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
        let reopened = try FeedStore(path: db)
        try await Self.feed("home", ["a", "b"], in: reopened).update(SharedPost(id: "b", revision: 3))
        reopened.close()
        let profile = try #require(
            try PagedDBBinary.json(try await PagedDBBinary.run(["items", "profile", "--db", db, "--json"]))
                as? [[String: Any]])
        let payloads = profile.compactMap { $0["payload"] as? [String: Any] }
        #expect(payloads.map { $0["revision"] as? Int } == [0, 3], "the seeded row took the other feed's update")
    }
}
