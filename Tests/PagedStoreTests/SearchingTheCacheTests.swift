import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A status as Mastodon sends it: HTML content and an author, searchable by both.
struct Toot: FeedItem, Codable, Equatable {
    static let searchableFields = ["content", "account.display_name"]
    struct Account: Codable, Equatable {
        var display_name: String
    }
    let id: String
    var content: String
    var account = Account(display_name: "Ada")
}

/// A status of a build whose type declared no searchable fields.
struct PlainToot: FeedItem, Codable, Equatable {
    let id: String
    var content: String
    var account = Toot.Account(display_name: "Ada")
}

/// The same status shared across feeds: one item, one search result.
struct SharedToot: FeedItem, Codable, Equatable {
    static let searchableFields = ["content"]
    static let sharedItemType: String? = "toot"
    let id: String
    var content: String
}

/// Search finds what the cache holds, and its index follows every write in the write's transaction:
/// pages, local edits, removals, trims, feeds deleted, new cache versions, shared copies.
@Suite(.limit(minutes: 1)) struct SearchingTheCacheTests {
    let test: FeedTestCase
    let store: FeedStore

    init() throws {
        test = try FeedTestCase()
        store = try test.store()
    }

    func feed<Item: FeedItem & Codable>(
        _ key: String, _ items: [Item], policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never)
    ) async throws -> Feed<Item> {
        let feed = try store.feed(
            key, source: ScriptedSource<Item> { _ in Page(items: items, olderCursor: nil) }, policy: policy)
        await feed.refresh()
        return feed
    }

    func found(_ text: String, in feeds: [String]? = nil) throws -> [String] {
        try store.search(text, as: Toot.self, in: feeds).map(\.id)
    }

    @Test func wordsAreFoundFoldedWithTheLastOneAsTyped() async throws {
        _ = try await feed(
            "home",
            [
                Toot(id: "1", content: "<p>Un <b>café</b> &amp; des croissants</p>"),
                Toot(id: "2", content: "<p>Swift concurrency in practice</p>"),
                Toot(id: "3", content: "東京都に住んでいる", account: .init(display_name: "Grace Hopper")),
            ])
        #expect(try found("cafe") == ["1"])
        #expect(try found("CAFÉ croiss") == ["1"])
        #expect(try found("croiss ") == [], "a finished word is not a prefix")
        #expect(try found("swift conc") == ["2"])
        #expect(try found("京都") == ["3"])
        #expect(try found("hopper") == ["3"])
        #expect(try found("amp") == [], "entities are decoded, not indexed")
        #expect(try found("span") == [], "markup is not text")
        let result = try #require(try store.search("cafe", as: Toot.self).first)
        #expect(result.text == "Un café & des croissants\nAda")
        #expect(result.matchedRanges.map { String(result.text[$0]) } == ["café"])
    }

    @Test(arguments: [
        "\"", "(", "AND", "-", "*", "   ", "🙂", "NEAR(", "a OR", "\"unbalanced", "col:umn", "^start", "x\u{0}y",
        "NOT NOT", ")(", String(repeating: "ab ", count: 400),
    ])
    func anyTextIsAQuery(text: String) async throws {
        _ = try await feed("home", [Toot(id: "1", content: "AND or NEAR not")])
        #expect(throws: Never.self) { try found(text) }
    }

    @Test func editsRemovalsAndTrimsLeaveTheIndexAsTheRows() async throws {
        // Three pages of two, so that a trim has pages to cut.
        let source = ScriptedSource<Toot> { request in
            let page: Int
            switch request {
            case .olderThan(let cursor): page = Int(cursor) ?? 0
            default: page = 0
            }
            let toots = (2 * page..<2 * page + 2).map { Toot(id: "\($0)", content: "post number \($0) about otters") }
            return Page(items: toots, olderCursor: page < 2 ? "\(page + 1)" : nil)
        }
        let home = try store.feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        await home.refresh()
        await home.loadNextPage()
        await home.loadNextPage()
        #expect(try Set(found("otters")) == Set((0..<6).map(String.init)))
        #expect(try await home.update(Toot(id: "2", content: "now about beavers")))
        #expect(try found("beavers") == ["2"])
        #expect(try !found("otters").contains("2"))
        #expect(try await home.remove(id: "3"))
        #expect(try !found("otters").contains("3"))
        let trimmed = try await home.trim(maxRows: 2)
        #expect(trimmed > 0)
        #expect(try Set(found("otters")) == Set(test.idsOnDisk()).subtracting(["2"]))
        try expectIndexMatchesTheRows()
    }

    @Test func aRefreshThatDropsItemsUnindexesThem() async throws {
        let pages = Locked([[Toot(id: "a", content: "alpha"), Toot(id: "b", content: "bravo")]])
        let home = try store.feed(
            "home", source: ScriptedSource<Toot> { _ in Page(items: pages.value[0], olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        await home.refresh()
        #expect(try found("bravo") == ["b"])
        // `a` sits above `b`, which the new page lists: the server deleted it.
        pages.value = [[Toot(id: "c", content: "charlie"), Toot(id: "b", content: "bravo again")]]
        await home.refresh()
        #expect(try test.idsOnDisk() == ["c", "b"])
        #expect(try found("alpha").isEmpty)
        #expect(try found("again") == ["b"])
        try expectIndexMatchesTheRows()
    }

    @Test func aNewCacheVersionAndADeletedFeedTakeTheirDocumentsAlong() async throws {
        _ = try await feed("home", [Toot(id: "1", content: "kept by version one")])
        _ = try await feed("other", [Toot(id: "2", content: "kept in the other feed")])
        _ = try store.feed(
            "home", source: ScriptedSource<Toot> { _ in Page(items: [], olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 2))
        #expect(try found("kept") == ["2"])
        _ = try store.queue.write { store in try store.deleteFeed(#require(try store.feed(key: "other"))) }
        #expect(try found("kept").isEmpty)
        try expectIndexMatchesTheRows()
    }

    @Test func aSharedItemIsOneResultWhileAnyFeedHoldsIt() async throws {
        let home = try await feed("home", [SharedToot(id: "1", content: "shared otter")])
        _ = try await feed("lists/otters", [SharedToot(id: "1", content: "shared otter")])
        let results = try store.search("otter", as: SharedToot.self)
        #expect(results.map(\.id) == ["1"])
        #expect(try store.search("otter", as: SharedToot.self, in: ["lists/otters"]).map(\.feedKey) == ["lists/otters"])
        #expect(try await home.remove(id: "1"))
        #expect(try store.search("otter", as: SharedToot.self).map(\.feedKey) == ["lists/otters"])
        try expectIndexMatchesTheRows()
    }

    @Test func rowsCachedBeforeTheTypeDeclaredFieldsAreIndexedInBatchesAfterItStarts() async throws {
        let count = 2 * Feed<Toot>.searchBacklogBatch + 7
        let toots = (0..<count).map { Toot(id: "\($0)", content: "heron \($0)") }
        // The same payloads, written by a build whose type declared nothing.
        _ = try await feed("home", toots.map { PlainToot(id: $0.id, content: $0.content) })
        #expect(try found("heron").isEmpty)
        let home = try store.feed(
            "home", source: ScriptedSource<Toot> { _ in Page(items: toots, olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        #expect(await home.snapshot.rows.count == count, "the first screen does not wait for the index")
        let events = await home.events
        await home.start()
        var progress: [Int] = []
        for await event in events where event.kind == .searchIndexed {
            progress.append(event.rowsChanged)
            if event.rowsChanged == count { break }
        }
        #expect(progress == [500, 1_000, count])
        #expect(try found("heron", in: ["home"]).count == 50)
        #expect(try store.search("heron", as: Toot.self, limit: 5_000).count == count)
        try expectIndexMatchesTheRows()
        // The batches changed no row: the feed's next refresh is its own, not another writer's.
        await home.refresh()
        #expect(await home.snapshot.rows.count == count)
    }

    @Test func aTypeThatDeclaresNothingIsNeverIndexed() async throws {
        _ = try await feed("home", [Post(id: "1")])
        // Not even the index's tables: a file where nothing is searchable parses none on open.
        #expect(try store.queue.read { try $0.hasSearchTables() } == false)
        #expect(try store.search("anything", as: Toot.self).isEmpty)
        #expect(try store.queue.read { try $0.searchIndexDifferences() } == (0, 0, 0))
    }

    @Test func anIndexEditedByHandIsReportedAndRebuilt() async throws {
        _ = try await feed("home", (0..<4).map { Toot(id: "\($0)", content: "walrus \($0)") })
        _ = try store.queue.write { store in
            try store.connection.run("DELETE FROM item WHERE item_id = '1'")
            try store.connection.run("DELETE FROM search_doc WHERE item_id = '2'")
        }
        let differences = try store.queue.read { try $0.searchIndexDifferences() }
        #expect(differences.orphans == 1 && differences.missing == 1 && differences.stale == 0)
        _ = try store.queue.write { try $0.rebuildSearchIndex() }
        #expect(try Set(found("walrus")) == ["0", "2", "3"])
        try expectIndexMatchesTheRows()
    }

    private func expectIndexMatchesTheRows(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let differences = try store.queue.read { try $0.searchIndexDifferences() }
        #expect(
            differences.orphans == 0 && differences.missing == 0 && differences.stale == 0,
            sourceLocation: sourceLocation)
    }
}
