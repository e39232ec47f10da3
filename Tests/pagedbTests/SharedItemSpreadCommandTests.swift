import Foundation
import PagedStore
import TestSupport
import Testing

/// A copy of a shared item that `pagedb` writes into one feed replaces the copy in every other feed
/// holding the item, as the library's own writes do, and the open lists of those feeds follow.
@Suite(.limit(minutes: 3)) struct SharedItemSpreadCommandTests {
    typealias Post = SharedPosts.Post
    let scratch: TemporaryDirectory
    let db: String
    init() throws {
        scratch = try TemporaryDirectory(prefix: "pagedbTests")
        db = scratch.path("cache.sqlite")
    }

    /// Ids s0001 … s0010: home's rows.
    static let homeIDs = (1...10).map { "s\(String(format: "%04d", $0))" }

    @Test func applyingARefreshSpreadsASharedItemsNewValueToEveryFeedHoldingIt() async throws {
        let store = try FeedStore(path: db)
        _ = try await SharedPosts.feed("home", SharedPosts.posts(Self.homeIDs, titled: "old"), in: store)
        let profile = try SharedPosts.open("profile", SharedPosts.posts(["s0008", "p1"], titled: "old"), in: store)
        let list = await ObservedList(profile)
        await profile.refresh()
        let items = Self.homeIDs.map { #"{"id":"\#($0)","title":"\#($0 == "s0008" ? "new" : "old")"}"# }
        let page = try scratch.file(
            "page.json", #"{"items":[\#(items.joined(separator: ","))],"next_cursor":null,"previous_cursor":null}"#)
        let applied = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", page, "--as", "refresh"])
        #expect(applied.status == 0, "\(applied.stderr)")
        await #expect(try SharedPosts.titles(of: "home", in: db)["s0008"] == "new")
        try await #require(try SharedPosts.titles(of: "profile", in: db) == ["s0008": "new", "p1": "old"])
        let shown = try #require(await list.firstSnapshot { $0.rows.first??.title == "new" })
        #expect(shown.rows.map { $0?.title } == ["new", "old"])
        #expect(list.seen.fullReloads == 0, "the change record names the reload: \(list.seen)")
        #expect(list.rejectedChanges.isEmpty, "\(list.rejectedChanges)")
        let show = try PagedDBBinary.json(try await PagedDBBinary.run(["show", "home", "--db", db, "--json"]))
        #expect((show as? [String: Any])?["shared_as"] as? String == "post", "apply keeps the feed's sharing name")
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
        store.close()
    }

    @Test func syncSpreadsTheServersCopyOfASharedItemToEveryFeedHoldingIt() async throws {
        let server = try LoopbackServer()
        let store = try FeedStore(path: db)
        _ = try await SharedPosts.feed("home", SharedPosts.posts(["i0"], titled: "old"), in: store)
        _ = try await SharedPosts.feed("profile", SharedPosts.posts(["i3", "p1"], titled: "old"), in: store)
        store.close()
        let synced = try await PagedDBBinary.run([
            "sync", "home", "--db", db, "--url", server.url("body").absoluteString, "--items-path", "data.items",
            "--next-path", "meta.next_cursor",
        ])
        #expect(synced.status == 0, "\(synced.stderr)")
        await #expect(try SharedPosts.titles(of: "profile", in: db) == ["i3": "Item 3", "p1": "old"])
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }

    @Test func seedingASharedFeedSpreadsEachCopyItWritesToTheFeedsHoldingIt() async throws {
        let store = try FeedStore(path: db)
        let home = try SharedPosts.open("home", SharedPosts.posts(["s0007", "s0008"], titled: "old"), in: store)
        let list = await ObservedList(home)
        await home.refresh()
        _ = try await SharedPosts.feed("profile", SharedPosts.posts(["p1"], titled: "old"), in: store)
        let fixture = try scratch.file("seed.ndjson", #"{"id":"s0008","title":"new"}"# + "\n")
        let seeded = try await PagedDBBinary.run(["seed", "profile", "--db", db, "--file", fixture])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        await #expect(try SharedPosts.titles(of: "profile", in: db) == ["p1": "old", "s0008": "new"])
        try await #require(try SharedPosts.titles(of: "home", in: db) == ["s0007": "old", "s0008": "new"])
        let shown = try #require(await list.firstSnapshot { $0.rows.last??.title == "new" })
        #expect(shown.rows.map { $0?.title } == ["old", "new"])
        #expect(list.seen.fullReloads == 0, "the change record names the reload: \(list.seen)")
        #expect(list.rejectedChanges.isEmpty, "\(list.rejectedChanges)")
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
        store.close()
    }
}
