import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A search screen as one live list: the cache's matches at once (offline too), the server's
/// results arriving into the same list as exact changes, its pages by cursor, and a new query
/// superseding the old.
@Suite(.limit()) struct SearchFeedTests {
    let test: FeedTestCase
    let store: FeedStore
    /// What the home timeline's server lists now.
    let home = Locked<[Toot]>([])

    init() throws {
        test = try FeedTestCase()
        store = try test.store()
    }

    /// Caches `toots` in the home feed, as a timeline's refresh would.
    func cacheInHome(_ toots: [Toot]) async throws {
        home.value = toots
        let feed = try store.feed(
            "home", source: ScriptedSource<Toot> { [home] _ in Page(items: home.value, olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
    }

    /// A search feed whose server answers each query with `answer`.
    func searchFeed(
        _ query: String, placement: LocalMatchPlacement = .below,
        policy: FeedPolicy = FeedPolicy(refreshOnOpen: .always),
        answer: @escaping @Sendable (String, PageRequest) throws -> Page<Toot>
    ) async throws -> SearchFeed<Toot> {
        try await store.searchFeed(
            query, key: "search", in: ["home"], order: .recency, placement: placement, policy: policy
        ) { query in
            ScriptedSource<Toot> { request in try answer(query, request) }
        }
    }

    /// The snapshots once the last satisfies `ready`, each checked as a batch update reads its change.
    func snapshots(
        _ recorder: StreamRecorder<SearchFeedSnapshot<Toot>>, _ context: String,
        once ready: @escaping @Sendable (SearchFeedSnapshot<Toot>) -> Bool
    ) async -> [SearchFeedSnapshot<Toot>] {
        let snapshots = await recorder.snapshots(once: ready)
        SearchSnapshotChecks.check(snapshots, context)
        return snapshots
    }

    static func rows(_ snapshot: SearchFeedSnapshot<Toot>) -> [String] {
        snapshot.entries.map { "\($0.id)\($0.origin == .server ? "" : " local")" }
    }

    @Test func theFirstSnapshotShowsTheCachedMatchesAndTheServersPageArrivesAsExactChanges() async throws {
        try await cacheInHome([
            Toot(id: "1", content: "swift one"), Toot(id: "2", content: "swift two"), Toot(id: "3", content: "rust"),
        ])
        let search = try await searchFeed("swift") { _, _ in
            Page(items: [Toot(id: "9", content: "swift nine"), Toot(id: "2", content: "swift two")], olderCursor: nil)
        }
        let recorder = StreamRecorder(await search.snapshots)
        let first = await search.snapshot
        // Most recently cached first: a page's last row was written last.
        #expect(Self.rows(first) == ["2 local", "1 local"])
        #expect(first.entries.allSatisfy { $0.match != nil && $0.item != nil })
        await search.start()
        let snapshots = await snapshots(recorder, "server's page") { Self.rows($0) == ["9", "2", "1 local"] }
        #expect(Self.rows(try #require(snapshots.last)) == ["9", "2", "1 local"])
        let last = try #require(snapshots.last)
        #expect(last.server.content == .content)
        #expect(last.entries.map(\.item?.content) == ["swift nine", "swift two", "swift one"])
        // The cached item the server also found keeps its highlights.
        #expect(last.entries[1].match?.matchedRanges.isEmpty == false)
    }

    @Test func offlineTheListHoldsTheCachedMatchesAndTheRefreshFailedWithItsErrorAndClosingTheStoreEndsIt() async throws
    {
        try await cacheInHome([Toot(id: "1", content: "swift one")])
        let search = try await searchFeed("swift") { _, _ in throw URLError(.notConnectedToInternet) }
        let recorder = StreamRecorder(await search.snapshots)
        await search.start()
        let snapshots = await snapshots(recorder, "offline") {
            if case .failed = $0.server.refresh { true } else { false }
        }
        let last = try #require(snapshots.last)
        #expect(Self.rows(last) == ["1 local"])
        guard case .failed(let error) = last.server.refresh else { return }
        #expect(error.kind == .source)
        store.close()
        let ended = await recorder.snapshots { _ in false }
        #expect(ended.count == snapshots.count)
    }

    @Test func aNewQuerySupersedesTheOldOneWhoseLateAnswerNeverReachesTheList() async throws {
        try await cacheInHome([Toot(id: "1", content: "swift one"), Toot(id: "2", content: "rust two")])
        let held = ScriptedSource<Toot>()
        let search = try await store.searchFeed("swift", key: "search", in: ["home"]) { _ in held }
        let recorder = StreamRecorder(await search.snapshots)
        async let swiftStarted: Void = search.start()
        let swiftFetch = await held.nextFetch()
        async let rustShown: Void = search.search("rust")
        let rustFetch = await held.nextFetch()
        rustFetch.respond(Page(items: [Toot(id: "8", content: "rust eight")], olderCursor: nil))
        try await rustShown
        swiftFetch.respond(Page(items: [Toot(id: "7", content: "swift seven")], olderCursor: nil))
        await swiftStarted
        let snapshots = await snapshots(recorder, "new query") { Self.rows($0) == ["8", "2 local"] }
        let last = try #require(snapshots.last)
        #expect(last.query == "rust")
        #expect(!snapshots.contains { $0.entries.contains { $0.id == "7" } })
        // The old query's answer is cached under its own key, for when it is typed again.
        let swiftFeed = try store.feed("search?q=swift", source: held, policy: FeedPolicy(refreshOnOpen: .never))
        #expect(await swiftFeed.snapshot.rows.loadedItems.map(\.id) == ["7"])
    }

    @Test func nextPagesFollowTheServersCursorsThenTheCachesWindows() async throws {
        try await cacheInHome((1...3).map { Toot(id: "\($0)", content: "swift \($0)") })
        let policy = FeedPolicy(refreshOnOpen: .always, firstScreenRows: 1)
        let search = try await searchFeed("swift", policy: policy) { _, request in
            switch request {
            case .olderThan: Page(items: [Toot(id: "8", content: "swift eight")], olderCursor: nil)
            default: Page(items: [Toot(id: "9", content: "swift nine")], olderCursor: "c2")
            }
        }
        let recorder = StreamRecorder(await search.snapshots)
        #expect(Self.rows(await search.snapshot) == ["3 local"])
        await search.start()
        _ = await snapshots(recorder, "first page") { Self.rows($0) == ["9", "3 local"] }
        await search.loadNextPage()
        _ = await snapshots(recorder, "next page") { Self.rows($0) == ["9", "8", "3 local"] }
        #expect(await search.snapshot.server.nextPage == .endReached)
        await search.loadNextPage()
        await search.loadNextPage()
        _ = await snapshots(recorder, "local windows") {
            Self.rows($0) == ["9", "8", "3 local", "2 local", "1 local"]
        }
        await search.loadNextPage()
        #expect(await search.snapshot.hasMore == false)
    }

    @Test func aCachedMatchTheServerBringsLaterMovesIntoTheServersRowsAndNewCachedMatchesJoinTheLocalRun()
        async throws
    {
        try await cacheInHome([Toot(id: "1", content: "swift one"), Toot(id: "2", content: "swift two")])
        let serverFinds = Locked<[Toot]>([Toot(id: "9", content: "swift nine")])
        let search = try await searchFeed("swift") { _, _ in Page(items: serverFinds.value, olderCursor: nil) }
        let recorder = StreamRecorder(await search.snapshots)
        await search.start()
        _ = await snapshots(recorder, "first page") { Self.rows($0) == ["9", "2 local", "1 local"] }
        serverFinds.value = [Toot(id: "1", content: "swift one"), Toot(id: "9", content: "swift nine")]
        await search.refresh()
        _ = await snapshots(recorder, "refresh") { Self.rows($0) == ["1", "9", "2 local"] }
        try await cacheInHome([Toot(id: "4", content: "more swift")] + home.value)
        _ = await snapshots(recorder, "a new cached match") { Self.rows($0) == ["1", "9", "4 local", "2 local"] }
    }

    @Test func theCachesMatchesCanBePlacedAboveTheServers() async throws {
        try await cacheInHome([Toot(id: "1", content: "swift one")])
        let search = try await searchFeed("swift", placement: .above) { _, _ in
            Page(items: [Toot(id: "9", content: "swift nine")], olderCursor: nil)
        }
        let recorder = StreamRecorder(await search.snapshots)
        await search.start()
        _ = await snapshots(recorder, "above") { Self.rows($0) == ["1 local", "9"] }
    }

    @Test func aServerRowWhoseItemChangedIsReconfigured() async throws {
        let serverFinds = Locked([Toot(id: "9", content: "swift nine")])
        let search = try await searchFeed("swift") { _, _ in Page(items: serverFinds.value, olderCursor: nil) }
        let recorder = StreamRecorder(await search.snapshots)
        await search.start()
        serverFinds.value = [Toot(id: "9", content: "swift nine, edited")]
        await search.refresh()
        let last = await search.snapshot
        #expect(last.entries.first?.item?.content == "swift nine, edited")
        #expect(last.change.reconfiguredIDs == ["9"])
        _ = await snapshots(recorder, "server edit") { $0.sequence == last.sequence }
    }

    @Test func aStreamAskedForAfterTheSearchOrItsStoreClosedEnds() async throws {
        let search = try await searchFeed("swift") { _, _ in Page(items: [], olderCursor: nil) }
        await search.close()
        var received = 0
        for await _ in await search.snapshots { received += 1 }
        #expect(received == 1)
        let other = try await searchFeed("swift") { _, _ in Page(items: [], olderCursor: nil) }
        store.close()
        // The store's close reaches the search feed a moment later: its parts may show the close
        // first. What matters is that the loop ends.
        received = 0
        for await _ in await other.snapshots { received += 1 }
        #expect(received >= 1)
        received = 0
        for await _ in await other.snapshots { received += 1 }
        #expect(received == 1, "a stream asked for once the store closed holds the last snapshot and ends")
    }

    @Test func theCachesNextWindowLoadsAsRowsAppearEvenWhenTheServerHoldsItsFirst() async throws {
        try await cacheInHome((1...6).map { Toot(id: "\($0)", content: "swift \($0)") })
        let policy = FeedPolicy(refreshOnOpen: .always, prefetchDistance: 3, firstScreenRows: 2)
        let search = try await searchFeed("swift", policy: policy) { _, _ in
            Page(items: [Toot(id: "6", content: "swift 6"), Toot(id: "5", content: "swift 5")], olderCursor: nil)
        }
        await search.start()
        #expect(Self.rows(await search.snapshot) == ["6", "5"])
        #expect(await search.snapshot.local.hasMore)
        await search.rowDidAppear(1)
        #expect(Self.rows(await search.snapshot) == ["6", "5", "4 local", "3 local"])
    }

    @Test func aQueryIsTheTextWithoutTheSpacesAroundItAndABlankOneAsksTheServerNothing() async throws {
        let asked = Locked<[String]>([])
        let search = try await searchFeed("swift") { query, _ in
            asked.value.append(query)
            return Page(items: [], olderCursor: nil)
        }
        await search.start()
        try await search.search("swift ")
        try await search.search("  ")
        await search.refresh()
        #expect(asked.value == ["swift"])
        #expect(search.feedKey(of: " swift ") == "search?q=swift")
        #expect(await search.snapshot.query == "")
    }
}
