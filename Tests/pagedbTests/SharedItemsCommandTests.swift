import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// `pagedb show` on feeds that share their items: the name and how many rows other feeds hold too.
@Suite struct SharedItemsCommandTests {
    struct SharedPost: FeedItem, Codable {
        static let sharedItemType: String? = "post"
        let id: String
    }

    @Test func showSaysTheNameAFeedSharesUnderAndHowManyOfItsRowsOtherFeedsHold() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let store = try FeedStore(path: db)
        for (key, ids) in [("home", ["a", "b", "c", "d"]), ("profile", ["b", "d", "x"])] {
            let source = ScriptedSource<SharedPost> { _ in Page(items: ids.map(SharedPost.init), olderCursor: nil) }
            await (try store.feed(key, source: source, policy: FeedPolicy(refreshOnOpen: .never))).refresh()
        }
        store.close()
        let text = try PagedDBBinary.run(["show", "home", "--db", db])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("shared as:  post (2 of its rows are in other feeds too)"))
        let json = try #require(
            try PagedDBBinary.json(try PagedDBBinary.run(["show", "profile", "--db", db, "--json"])) as? [String: Any])
        #expect(json["shared_as"] as? String == "post")
        #expect(json["rows_in_other_feeds"] as? Int == 2)
    }

    @Test func aFeedWhoseItemsAreItsOwnSaysNothingOfSharing() throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let items = try scratch.file("items.json", #"[{"id":"a"}]"#)
        #expect(try PagedDBBinary.run(["seed", "home", "--db", db, "--file", items]).status == 0)
        let text = try PagedDBBinary.run(["show", "home", "--db", db])
        #expect(!text.stdout.contains("shared as"))
        let json = try #require(
            try PagedDBBinary.json(try PagedDBBinary.run(["show", "home", "--db", db, "--json"])) as? [String: Any])
        #expect(json["shared_as"] is NSNull)
    }
}
