import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Where search, shared items, the budget and other stores meet: each keeps the others right.
@Suite(.limit(minutes: 2)) struct SearchAndBudgetWhereFeaturesMeetTests {
    let test: FeedTestCase
    let store: FeedStore

    init() throws {
        test = try FeedTestCase()
        store = try test.store()
    }

    func source<Item: FeedItem>(_ items: Locked<[Item]>) -> ScriptedSource<Item> {
        .serving(items)
    }

    func differences(_ store: FeedStore) throws -> String {
        let d = try store.queue.read { try $0.searchIndexDifferences() }
        return "\(d.orphans)/\(d.missing)/\(d.stale)"
    }

    /// A cache-version clear of "a", which holds a shared item that "b" holds too, while another
    /// store's search list is open: the item stays one result, now shown by "b".
    @Test func aCacheVersionClearOfOneHolderKeepsTheOneResultInAnotherStoresList() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let items = Locked([SharedToot(id: "1", content: "otter"), SharedToot(id: "2", content: "otter two")])
        let a = try store.feed("a", source: source(items), policy: policy)
        let b = try store.feed("b", source: source(Locked([SharedToot(id: "1", content: "otter")])), policy: policy)
        await a.refresh()
        await b.refresh()
        let other = try test.store()
        let list = try other.searchList("otter", as: SharedToot.self, order: .recency)
        let recorder = StreamRecorder(await list.snapshots)
        #expect(await list.snapshot.results.map(\.listID).sorted() == ["a\u{1F}1", "a\u{1F}2"])
        _ = try store.feed("a", source: source(items), policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 3))
        let after = await recorder.snapshots { $0.results.map(\.id) == ["1"] }
        #expect(after.last?.results.map(\.feedKey) == ["b"])
        #expect(try store.search("otter", as: SharedToot.self).map(\.id) == ["1"])
        #expect(try differences(store) == "0/0/0")
        _ = (a, b)
    }

    /// A budget eviction by one store reaches a search list open (observed) in another store.
    @Test func aBudgetEvictionByOneStoreReachesAnotherStoresSearchList() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let keys = (0..<4).map { "feed\($0)" }
        for key in keys {
            let toots = (0..<200).map {
                Toot(id: "\(key)-\($0)", content: "otter \(String(repeating: "padding ", count: 60))")
            }
            await (try store.feed(key, source: source(Locked(toots)), policy: policy)).refresh()
        }
        try DatabaseQueue(path: test.path).write { s in
            for (hours, key) in keys.enumerated() {
                guard let feed = try s.feed(key: key) else { continue }
                try s.recordOpened(feed, at: Date() - TimeInterval(hours * 3_600 + 3_600))
            }
        }
        let list = try store.searchList("otter", as: Toot.self, order: .recency, pageSize: 1_000)
        let recorder = StreamRecorder(await list.snapshots)
        #expect(await list.snapshot.results.count == 800)
        let budgeted = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: 300_000))
        let done = try budgeted.keepWithinBudget()
        #expect(done.contains { $0.kind == .evictedOverBudget })
        let expected = try store.search("otter", as: Toot.self, order: .recency, limit: 10_000).map(\.listID)
        let seen = await recorder.snapshots { $0.results.map(\.listID) == expected }
        #expect(seen.last?.results.count == expected.count)
        #expect(try differences(store) == "0/0/0")
    }

    /// A budget trim of a feed with a queued edit on its bottom row: the row stays, the edit stays
    /// queued and its text is found.
    @Test func aBudgetTrimKeepsAQueuedEditsRowAndItsText() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let pageSize = 20
        let src = ScriptedSource<Toot> { request in
            let start = Int(request.cursor ?? "0") ?? 0
            let toots = (start..<(start + pageSize)).map {
                Toot(id: "\($0)", content: "row\($0) \(String(repeating: "padding ", count: 60))")
            }
            return Page(items: toots, olderCursor: start + pageSize < 200 ? "\(start + pageSize)" : nil)
        }
        let home = try store.feed("home", source: src, policy: policy)
        await home.refresh()
        for _ in 0..<9 { await home.loadNextPage() }
        #expect(await home.snapshot.rows.count == 200)
        try await home.enqueue("revise", id: "199", argument: Revision(revision: 1)) { $0.content = "beaver" }
        store.close()
        try DatabaseQueue(path: test.path).write { s in
            guard let feed = try s.feed(key: "home") else { return }
            try s.recordOpened(feed, at: Date() - 3_600)
        }
        let budgeted = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: 50_000))
        _ = try budgeted.keepWithinBudget()
        #expect(try test.idsOnDisk(key: "home").contains("199"))
        #expect(try budgeted.search("beaver", as: Toot.self).map(\.id) == ["199"])
        #expect(try budgeted.queue.read { try $0.queuedEdits().count } == 1)
        #expect(try differences(budgeted) == "0/0/0")
    }

    /// A queued edit of a shared item in "home" shows in "profile". "home" gets a new cache version
    /// (its rows go, the edit stays queued), then "profile" refreshes with the server's copy, and
    /// the edit is rejected: profile shows the server's copy, and search finds it by that text only.
    @Test func aRejectedQueuedEditAfterTheOtherFeedsRefreshRestoresTheRefreshedCopy() async throws {
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let (home, profile) = try await store.homeAndProfile(holding: items)
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        #expect(await profile.firstSnapshot { $0.rows[0]?.content == "beaver" } != nil)
        _ = try store.feed("home", source: source(items), policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 2))
        items.value = [SharedToot(id: "1", content: "walrus")]
        await profile.refresh()
        #expect(await profile.snapshot.rows[0]?.content == "walrus", "a detached edit shows on no row")
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(await profile.firstSnapshot { $0.rows[0]?.content == "walrus" } != nil)
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").first?.content == "walrus")
        #expect(try store.search("walrus", as: SharedToot.self).map(\.id) == ["1"])
        #expect(try store.search("beaver", as: SharedToot.self).isEmpty)
        #expect(try differences(store) == "0/0/0")
        _ = home
    }

    /// A budget eviction of "profile" (holding a shared item "home" holds with a queued edit):
    /// the edit, its row in home and the one search result stay.
    @Test func aBudgetEvictionOfTheOtherHolderOfAnEditedSharedItem() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let items = Locked(
            [SharedToot(id: "1", content: "otter")]
                + (2..<300).map { SharedToot(id: "\($0)", content: "pad \(String(repeating: "padding ", count: 40))") })
        let home = try store.feed(
            "home", source: source(Locked([SharedToot(id: "1", content: "otter")])), policy: policy)
        let profile = try store.feed("profile", source: source(items), policy: policy)
        await home.refresh()
        await profile.refresh()
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        #expect(await profile.firstSnapshot { $0.rows[0]?.content == "beaver" } != nil)
        let list = try store.searchList("beaver", as: SharedToot.self)
        let recorder = StreamRecorder(await list.snapshots)
        store.close()
        try DatabaseQueue(path: test.path).write { s in
            for (hours, key) in ["home", "profile"].enumerated() {
                guard let feed = try s.feed(key: key) else { continue }
                try s.recordOpened(feed, at: Date() - TimeInterval(hours * 3_600 + 3_600))
            }
        }
        let budgeted = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: 30_000))
        let done = try budgeted.keepWithinBudget()
        #expect(done.contains { $0.feedKey == "profile" })
        #expect(try budgeted.search("beaver", as: SharedToot.self).map(\.feedKey) == ["home"])
        #expect(try budgeted.queue.read { try $0.queuedEdits().count } == 1)
        #expect(try differences(budgeted) == "0/0/0")
        _ = recorder
    }

    /// An optimistic (closure) edit of a shared item in "home", its call pending, shows in
    /// "profile". A second store opens "home" with a new cache version: the rule drops the edit
    /// (made with a closure on a row a new cache version cleared). Nothing pending shows the edit
    /// any more, so profile must not keep showing it, nor search find it, once the call fails.
    @Test func aDroppedOptimisticEditOfASharedItemNoLongerShowsInTheOtherFeed() async throws {
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let (home, profile) = try await store.homeAndProfile(holding: items)
        let edit = await HeldRefusedEdit(of: "1", in: home) { $0.content = "beaver" }
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").first?.content == "beaver")
        let other = try test.store()
        _ = try other.feed("home", source: source(items), policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 5))
        #expect(
            try other.queue.read { s in try s.feeds().map { try s.pendingEditRows(of: $0).edits.count } } == [0, 0])
        await edit.refuse()
        let shown = try test.itemsOnDisk(of: SharedToot.self, key: "profile").first?.content
        #expect(shown == "otter", "no edit is pending: profile shows the server's copy")
        let found = try store.search("beaver", as: SharedToot.self).map(\.listID)
        #expect(found == [])
        #expect(try differences(store) == "0/0/0")
        _ = profile
    }

    /// A list in relevance order loads its next window after the rank of its last result, as read
    /// when that window was read. Other rows written meanwhile (here, posts that do not match) move
    /// every rank (bm25 weighs a word by the whole index): the next window must still hold the
    /// results not yet loaded.
    @Test func aNextWindowAfterWritesThatMovedEveryRankStillHoldsTheRest() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let matching = [
            Toot(id: "1", content: "otter"), Toot(id: "2", content: "otter otter"),
            Toot(id: "3", content: "otter otter otter"),
        ]
        await (try store.feed("home", source: source(Locked(matching)), policy: policy)).refresh()
        let list = try store.searchList("otter ", as: Toot.self, pageSize: 1)
        #expect(await list.snapshot.results.count == 1)
        let others = (0..<200).map { Toot(id: "n\($0)", content: "heron \($0)") }
        await (try store.feed("other", source: source(Locked(others)), policy: policy)).refresh()
        await list.loadMore()
        await list.loadMore()
        await list.loadMore()
        let loaded = await list.snapshot.results.map(\.id)
        let all = try store.search("otter ", as: Toot.self).map(\.id)
        #expect(all.count == 3)
        #expect(Set(loaded) == Set(all), "loaded \(loaded) of \(all)")
    }
}
