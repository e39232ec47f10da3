import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// `pagedb` writing a file whose shared, searchable feeds an app's store has open.
@Suite(.limit(minutes: 3), .plainRunOnly) struct CommandsOnSharedSearchableFeedsTests {
    struct Toot: FeedItem, Codable, Equatable {
        static let searchableFields = ["content"]
        static let sharedItemType: String? = "toot"
        let id: String
        var content: String
    }

    struct Revision: Codable, Sendable { var revision: Int }

    /// The feed `key` of `store`, whose server serves `items`, recorded with cache `version`.
    static func feed(_ key: String, _ items: [Toot], in store: FeedStore, version: Int = 0) throws -> Feed<Toot> {
        let source = ScriptedSource<Toot> { _ in Page(items: items, olderCursor: nil) }
        return try store.feed(key, source: source, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: version))
    }

    /// A file in `scratch` whose two feeds hold what their servers serve, refreshed, with the store
    /// still open.
    static func refreshedFeeds(
        _ first: (key: String, items: [Toot]), _ second: (key: String, items: [Toot]), in scratch: TemporaryDirectory
    ) async throws -> (db: String, store: FeedStore, first: Feed<Toot>, second: Feed<Toot>) {
        let db = scratch.path("cache.sqlite")
        let store = try FeedStore(path: db)
        let feeds = (try feed(first.key, first.items, in: store), try feed(second.key, second.items, in: store))
        await feeds.0.refresh()
        await feeds.1.refresh()
        return (db, store, feeds.0, feeds.1)
    }

    /// A file where "home" and "profile" both hold the shared item 1 ("otter") and home queued an
    /// edit of it to "beaver", its store closed; `extra` refreshes more feeds first.
    static func twoFeedsWithAQueuedEdit(
        in scratch: TemporaryDirectory, extra: (FeedStore) async throws -> Void = { _ in }
    ) async throws -> String {
        let (db, store, home, _) = try await Self.refreshedFeeds(
            ("home", [Toot(id: "1", content: "otter")]), ("profile", [Toot(id: "1", content: "otter")]), in: scratch)
        try await extra(store)
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        store.close()
        return db
    }

    /// Expects `pagedb verify` to find the file right.
    static func expectVerified(_ db: String) async throws {
        let verify = try await PagedDBBinary.run(["verify", "--db", db])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    /// `pagedb seed` of profile brings a new copy of an item home holds, while the app's search
    /// list is observed: the list follows, search finds only the new text, verify passes.
    @Test func aSeedOfASharedSearchableFeedReachesTheOpenSearchList() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, store, _, _) = try await Self.refreshedFeeds(
            ("home", [Toot(id: "1", content: "otter")]), ("profile", [Toot(id: "9", content: "heron")]), in: scratch)
        let list = try store.searchList("walrus", as: Toot.self)
        let recorder = StreamRecorder(await list.snapshots)
        let items = try scratch.file("items.json", #"[{"id":"1","content":"walrus"}]"#)
        let seeded = try await PagedDBBinary.run(["seed", "profile", "--db", db, "--file", items])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let seen = await recorder.snapshots { $0.results.map(\.id) == ["1"] }
        #expect(seen.last?.results.first?.item.content == "walrus")
        #expect(try store.search("otter", as: Toot.self).isEmpty)
        #expect(try store.search("walrus", as: Toot.self).count == 1)
        try await Self.expectVerified(db)
    }

    /// `pagedb delete home --drop-pending-edits` drops home's queued edit of an item profile holds:
    /// the edit is never sent, so profile must not keep showing (and search finding) its value.
    @Test func aDroppedQueuedEditOfASharedItemNoLongerShowsInTheOtherFeed() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await Self.twoFeedsWithAQueuedEdit(in: scratch)
        let deleted = try await PagedDBBinary.run(["delete", "home", "--db", db, "--drop-pending-edits"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let reopened = try FeedStore(path: db)
        let again = try Self.feed("profile", [Toot(id: "1", content: "otter")], in: reopened)
        let shown = await again.snapshot.rows[0]?.content
        #expect(shown == "otter", "a dropped edit shows nowhere")
        let found = try reopened.search("beaver", as: Toot.self).map(\.listID)
        #expect(found == [])
        try await Self.expectVerified(db)
    }

    /// `pagedb trim` of profile cuts a shared item home holds too, while a search list is observed:
    /// the item stays one result, shown by home.
    @Test func aTrimOfOneHolderKeepsTheSharedResult() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let store = try FeedStore(path: db)
        let profileSource = ScriptedSource<Toot> { request in
            request.cursor == nil
                ? Page(items: [Toot(id: "2", content: "otter two")], olderCursor: "p2")
                : Page(items: [Toot(id: "1", content: "otter")], olderCursor: nil)
        }
        let home = try Self.feed("home", [Toot(id: "1", content: "otter")], in: store)
        let profile = try store.feed("profile", source: profileSource, policy: FeedPolicy(refreshOnOpen: .never))
        await home.refresh()
        await profile.refresh()
        await profile.loadNextPage()
        let list = try store.searchList("otter", as: Toot.self, order: .recency)
        let recorder = StreamRecorder(await list.snapshots)
        let trimmed = try await PagedDBBinary.run(["trim", "profile", "--db", db, "--max-rows", "1"])
        #expect(trimmed.status == 0, "\(trimmed.stderr)")
        #expect(trimmed.stdout.contains("Removed 1 rows"), "\(trimmed.stdout)")
        let found = try store.search("otter", as: Toot.self, order: .recency)
        #expect(Set(found.map(\.id)) == ["1", "2"])
        #expect(found.first { $0.id == "1" }?.feedKey == "home")
        let seen = await recorder.snapshots { Set($0.results.map(\.listID)) == Set(found.map(\.listID)) }
        #expect(!seen.isEmpty)
        try await Self.expectVerified(db)
    }

    /// `pagedb delete home` while the app has home open and observed, then the app refreshes home:
    /// the list follows the delete, the refresh writes a new feed, and search finds its rows.
    @Test func anAppRefreshAfterPagedbDeletedItsFeed() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let store = try FeedStore(path: db)
        let items = Locked([Toot(id: "1", content: "otter")])
        let source = ScriptedSource<Toot> { _ in Page(items: items.value, olderCursor: nil) }
        let home = try store.feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        await home.refresh()
        let search = try store.searchList("otter", as: Toot.self)
        let searchRecorder = StreamRecorder(await search.snapshots)
        let recorder = StreamRecorder(await home.snapshots)
        let deleted = try await PagedDBBinary.run(["delete", "home", "--db", db])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        let emptied = await recorder.snapshots { $0.rows.count == 0 }
        #expect(!emptied.isEmpty)
        let noResults = await searchRecorder.snapshots { $0.results.isEmpty }
        #expect(!noResults.isEmpty)
        items.value = [Toot(id: "2", content: "otter again")]
        await home.refresh()
        let rows = await home.snapshot.rows.compactMap { $0?.id }
        #expect(rows == ["2"])
        let found = try store.search("otter", as: Toot.self).map(\.id)
        #expect(found == ["2"])
        let shown = try #require(
            try PagedDBBinary.json(try await PagedDBBinary.run(["show", "home", "--db", db, "--json"]))
                as? [String: Any])
        #expect(shown["search"] is [String: Any], "searchable: \(shown["search"] ?? "nil")")
        #expect(shown["shared_as"] as? String == "toot", "shared: \(shown["shared_as"] ?? "nil")")
        try await Self.expectVerified(db)
    }

    /// `pagedb seed` of a new server copy of a shared item with a queued edit in home, into `seeded`
    /// (a third feed, which lacked it: seed skips ids a feed has):
    /// the edit stays on top in every feed holding it, search finds it once by the edit's text, and
    /// its rejection shows the seeded copy.
    @Test(arguments: ["other"])
    func aSeedUnderAQueuedEditOfASharedItem(seeded: String) async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await Self.twoFeedsWithAQueuedEdit(in: scratch) { store in
            await (try Self.feed("other", [Toot(id: "9", content: "heron")], in: store)).refresh()
        }
        let items = try scratch.file("items.json", #"[{"id":"1","content":"walrus"}]"#)
        let result = try await PagedDBBinary.run(["seed", seeded, "--db", db, "--file", items])
        #expect(result.status == 0, "\(result.stderr)")
        try await Self.expectVerified(db)
        let reopened = try FeedStore(path: db)
        let h = try Self.feed("home", [], in: reopened)
        let p = try Self.feed("profile", [], in: reopened)
        let shownHome = await h.snapshot.rows.compactMap { $0?.content }
        let shownProfile = await p.snapshot.rows.compactMap { $0?.content }
        #expect(shownHome == ["beaver"], "the queued edit stays on top")
        #expect(shownProfile == ["beaver"], "the queued edit stays on top in every feed")
        let found = try reopened.search("beaver", as: Toot.self).map(\.listID)
        #expect(found.count == 1)
        let (homeList, profileList) = (await ObservedList(h), await ObservedList(p))
        await reopened.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        for await status in await reopened.outbox.states where status.count == 0 { break }
        // The feed that settled the edit writes the other's rows too; that one follows the write.
        for (list, name) in [(homeList, "home"), (profileList, "profile")] {
            let shown = await list.firstSnapshot(within: .seconds(60)) {
                $0.rows.compactMap { $0?.content } == ["walrus"]
            }
            #expect(shown != nil, "\(name) never showed the seeded copy the rejection restores")
        }
        let walrus = try reopened.search("walrus", as: Toot.self).map(\.id)
        #expect(walrus == ["1"])
        let beaver = try reopened.search("beaver", as: Toot.self).map(\.id)
        #expect(beaver == [])
    }
}
