import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// What a write that fails after its rebuild throws.
private struct FailureAfterTheRebuild: Error {}

/// Which order a search runs in (``SearchRanking``), against hostile files and random corpora:
/// windows of any size rebuild one read, documents no row shows are stepped over, a live list whose
/// matches cross the limit changes exactly, and a rebuild of the index (as `pagedb reindex` runs
/// it) keeps what newest first means, rolls back whole, and serves another store meanwhile.
@Suite(.limit(minutes: 4)) struct SearchOrderAcrossHostileFilesTests {
    let test: FeedTestCase
    let store: FeedStore

    init() throws {
        test = try FeedTestCase()
        store = try test.store()
    }

    @discardableResult
    func cache<Item: FeedItem & Codable>(
        _ key: String, _ items: [Item], on store: FeedStore? = nil
    ) async throws
        -> Feed<Item>
    {
        let feed = try (store ?? self.store).feed(
            key, source: ScriptedSource<Item> { _ in Page(items: items, olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        return feed
    }

    func find(
        _ text: String, feeds: [String]? = nil, recent: Bool = false, after: CachedSearch.Match? = nil,
        limit: Int = 10_000, broadAt: Int = SearchRanking.broadPrefixMatches, on store: FeedStore? = nil
    ) throws -> [CachedSearch.Match] {
        try (store ?? self.store).queue.read { file in
            try CachedSearch.find(
                text, in: file, feeds: feeds, recent: recent, after: after, limit: limit, broadPrefixMatches: broadAt)
        }
    }

    func differences(_ store: FeedStore? = nil) throws -> (orphans: Int, missing: Int, stale: Int) {
        try (store ?? self.store).queue.read { try $0.searchIndexDifferences() }
    }

    /// `count` otters of a few lengths, so that their ranks differ.
    func cacheBroadOtters(count: Int = 1_001) async throws -> Feed<Toot> {
        let toots = (0..<count).map { index in
            Toot(id: "o\(index)", content: "otter" + String(repeating: " river", count: (index * 7) % 11))
        }
        return try await cache("home", toots)
    }

    // MARK: - The count, and documents no row shows

    /// Ranking costs FTS5 a pass over the matches of every feed, whichever the search lists.
    @Test func aSearchOfSomeFeedsCountsTheMatchesOfEvery() async throws {
        try await cache(
            "a", (0..<3).map { Toot(id: "a\($0)", content: "otter" + String(repeating: " river", count: $0)) })
        try await cache("b", (0..<5).map { Toot(id: "b\($0)", content: "otter \($0)") })
        let inA = try find("ott", feeds: ["a"], broadAt: 4)
        #expect(inA.map(\.id) == ["a2", "a1", "a0"], "the last cached first")
        #expect(inA.allSatisfy { $0.position.order == .recency })
        #expect(try find("ott", feeds: ["a"], broadAt: 8).map(\.id) == ["a0", "a1", "a2"], "the best first")
    }

    @Test func windowsOfOneStepOverDocumentsNoRowShows() async throws {
        try await cache("a", (0..<4).map { Toot(id: "a\($0)", content: "otter \($0)") })
        let feedID = try #require(try store.queue.read { try $0.feed(key: "a")?.id })
        // Five orphans above every real document in recency order, and one between.
        try ForeignWriter.execute(
            """
            INSERT INTO search_doc (doc, owner, item_id) VALUES (900, 'f\(feedID)', 'g0'), (901, 'f', 'g1'),
                (902, 'f-1', 'g2'), (903, 's', 'g3'), (904, 'f\(feedID)x', 'g4');
            INSERT INTO item_search (rowid, body) VALUES (900, 'otter'), (901, 'otter'), (902, 'otter'), (903, 'otter'),
                (904, 'otter'), (905, 'otter');
            """, on: test.path)
        let reopened = try test.store()
        for (recent, broadAt) in [(true, 1_000), (false, 1), (false, 1_000)] {
            var ids: [String] = []
            var after: CachedSearch.Match? = nil
            for _ in 0..<20 {
                let window = try find("ott", recent: recent, after: after, limit: 1, broadAt: broadAt, on: reopened)
                ids += window.map(\.id)
                guard let last = window.last else { break }
                after = last
            }
            #expect(ids.sorted() == ["a0", "a1", "a2", "a3"], "recent \(recent) broadAt \(broadAt): \(ids)")
        }
    }

    @Test func reindexKeepsWhatNewestFirstMeans() async throws {
        // "z" cached first (older), "a" cached after it (newer).
        try await cache("z", (0..<3).map { Toot(id: "z\($0)", content: "otter \($0)") })
        try await cache("a", (0..<3).map { Toot(id: "a\($0)", content: "otter \($0)") })
        try store.makeSearchIndexWithoutPrefixes()
        let before = try find("ott", broadAt: 2).map(\.id)
        #expect(before.prefix(3).allSatisfy { $0.hasPrefix("a") }, "the newest cached first: \(before)")
        // What `pagedb reindex` runs, and an older file needs to gain its prefix index.
        _ = try store.queue.write { try $0.rebuildSearchIndex() }
        let after = try find("ott", broadAt: 2).map(\.id)
        #expect(after == before, "pagedb reindex changed the newest-first order: before \(before), after \(after)")
    }

    // MARK: - Against a plain scan, in every window size

    @Test(arguments: Array(UInt64(1)...UInt64(12)))
    func randomCorporaMatchAPlainScanInEveryWindow(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let letters = ["o", "t", "e"]
        func word() -> String {
            (0..<Int.random(in: 1...4, using: &random)).map { _ in
                letters[Int.random(in: 0..<letters.count, using: &random)]
            }.joined()
        }
        func text() -> String { (0..<Int.random(in: 1...4, using: &random)).map { _ in word() }.joined(separator: " ") }
        // Own items in "a" and "b"; shared items in "s1" and "s2", the same text in each.
        var own: [String: [Toot]] = [:]
        for key in ["a", "b"] {
            own[key] = (0..<Int.random(in: 0...9, using: &random)).map { Toot(id: "\(key)\($0)", content: text()) }
        }
        let sharedText = (0..<8).map { _ in text() }
        var shared: [String: [SharedToot]] = [:]
        for key in ["s1", "s2"] {
            shared[key] = (0..<8).filter { _ in Bool.random(using: &random) }.map {
                SharedToot(id: "x\($0)", content: sharedText[$0])
            }
        }
        for key in ["a", "b"] { try await cache(key, own[key, default: []]) }
        for key in ["s1", "s2"] { try await cache(key, shared[key, default: []]) }

        func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) + ["ada"] }
        for _ in 0..<25 {
            let queryWords = (0..<Int.random(in: 1...2, using: &random)).map { _ in word() }
            let prefix = Bool.random(using: &random)
            let typed = queryWords.joined(separator: " ") + (prefix ? "" : " ")
            let filter: [String]? = [nil, ["a"], ["s2"], ["a", "s1"], ["b", "s2"]][
                Int.random(in: 0..<5, using: &random)]
            func matches(_ content: String) -> Bool {
                let have = words(content)
                for (index, query) in queryWords.enumerated() {
                    let last = index == queryWords.count - 1
                    if last && prefix {
                        if !have.contains(where: { $0.hasPrefix(query) }) { return false }
                    } else if !have.contains(query) {
                        return false
                    }
                }
                return true
            }
            var expected = Set<String>()
            var documents = 0
            for key in ["a", "b"] {
                for toot in own[key, default: []] where matches(toot.content) {
                    documents += 1
                    if filter?.contains(key) ?? true { expected.insert(key + ":" + toot.id) }
                }
            }
            for index in 0..<8 where matches(sharedText[index]) {
                let holders = ["s1", "s2"].filter { key in shared[key, default: []].contains { $0.id == "x\(index)" } }
                guard !holders.isEmpty else { continue }
                documents += 1
                if let first = holders.first(where: { filter?.contains($0) ?? true }) {
                    expected.insert(first + ":x\(index)")
                }
            }
            let broadAt = Int.random(in: 0...6, using: &random)
            let context =
                "seed \(seed) query \"\(typed)\" feeds \(filter ?? []) broadAt \(broadAt) documents \(documents)"
            let all = try find(typed, feeds: filter, broadAt: broadAt)
            let keys = all.map { $0.feedKey + ":" + $0.id }
            #expect(Set(keys).count == keys.count, "\(context): a result listed twice \(keys)")
            #expect(Set(keys) == expected, "\(context): found \(keys.sorted()) scanned \(expected.sorted())")
            let broad = prefix && documents > broadAt
            #expect(
                all.allSatisfy { $0.position.order == (broad ? .recency : .relevance) },
                "\(context): ran \(all.map(\.position.order))")
            let reference = try find(typed, feeds: filter, recent: broad, broadAt: Int.max).map {
                $0.feedKey + ":" + $0.id
            }
            #expect(keys == reference, "\(context): order \(keys) vs \(reference)")
            // Windows of every size give the same list, each result once.
            for size in [1, 2, 3] {
                var windows: [String] = []
                var after: CachedSearch.Match? = nil
                var rounds = 0
                while rounds < 100 {
                    rounds += 1
                    let window = try find(typed, feeds: filter, after: after, limit: size, broadAt: broadAt)
                    windows += window.map { $0.feedKey + ":" + $0.id }
                    guard window.count == size, let last = window.last else { break }
                    after = last
                }
                #expect(windows == keys, "\(context): windows of \(size) \(windows) vs \(keys)")
            }
        }
        #expect(try differences() == (0, 0, 0))
    }

    @Test func limitsZeroOneAndIntMaxWithAndWithoutAFilter() async throws {
        try await cache("a", (0..<4).map { Toot(id: "a\($0)", content: "otter \($0)") })
        try await cache("b", (0..<30).map { Toot(id: "b\($0)", content: "otter \($0)") })
        for filter in [nil, ["a"], ["b"], ["a", "b"], ["nope"]] as [[String]?] {
            let expected =
                filter == nil ? 34 : (filter == ["a"] ? 4 : filter == ["b"] ? 30 : filter == ["nope"] ? 0 : 34)
            #expect(try find("ott", feeds: filter, limit: 0, broadAt: 3).isEmpty)
            #expect(try find("ott", feeds: filter, limit: 1, broadAt: 3).count == min(1, expected))
            #expect(try find("ott", feeds: filter, limit: Int.max, broadAt: 3).count == expected)
            #expect(try find("ott", feeds: filter, limit: Int.max - 3, broadAt: Int.max).count == expected)
            #expect(try find("ott", feeds: filter, limit: Int.max, broadAt: -5).count == expected)
        }
    }

    // MARK: - CJK

    @Test func aCJKRunBeingTypedCountsAndWindowsLikeAWord() async throws {
        let toots = (0..<6).map { Toot(id: "j\($0)", content: "東京都 \($0) " + String(repeating: "大阪 ", count: $0)) }
        try await cache("home", toots)
        for text in ["東", "東京", "東京都", "東京 "] {
            let broad = try find(text, broadAt: 2)
            let ranked = try find(text, broadAt: Int.max)
            #expect(Set(broad.map(\.id)) == Set(toots.map(\.id)), "\(text)")
            #expect(Set(ranked.map(\.id)) == Set(toots.map(\.id)), "\(text)")
            var windows: [String] = []
            var after: CachedSearch.Match? = nil
            for _ in 0..<10 {
                let window = try find(text, after: after, limit: 4, broadAt: 2)
                windows += window.map(\.id)
                guard let last = window.last, window.count == 4 else { break }
                after = last
            }
            #expect(windows == broad.map(\.id), "\(text)")
        }
    }

    // MARK: - The rebuild that drops and re-creates item_search

    @Test func aRebuildThatThrowsRollsBackWhole() async throws {
        try await cache("a", (0..<5).map { Toot(id: "a\($0)", content: "otter \($0)") })
        try store.makeSearchIndexWithoutPrefixes()
        let before = try find("ott").map(\.id)
        #expect(
            throws: FailureAfterTheRebuild.self,
            performing: {
                _ = try store.queue.write { file -> Int in
                    _ = try file.rebuildSearchIndex()
                    throw FailureAfterTheRebuild()
                }
            })
        #expect(try store.searchIndexSchema()?.contains("prefix") == false, "the old table is back")
        #expect(try find("ott").map(\.id) == before)
        #expect(try differences() == (0, 0, 0))
        // The next write in the same store still indexes (nothing the rolled back rebuild cached survives).
        try await cache("a", (0..<6).map { Toot(id: "a\($0)", content: "otter \($0)") })
        #expect(Set(try find("ott").map(\.id)) == Set((0..<6).map { "a\($0)" }))
        #expect(try differences() == (0, 0, 0))
    }

    @Test func aRebuildWhileAnotherStoreReadsAndWritesTheFile() async throws {
        let other = try test.store()
        let theirs = Locked<[Toot]>((0..<5).map { Toot(id: "t\($0)", content: "otter \($0)") })
        let theirFeed = try other.feed(
            "theirs", source: ScriptedSource<Toot> { [theirs] _ in Page(items: theirs.value, olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        await theirFeed.refresh()
        try await cache("a", (0..<5).map { Toot(id: "a\($0)", content: "otter \($0)") })
        try store.makeSearchIndexWithoutPrefixes()
        // The other store has read through the old table (its statements and FTS5's are warm).
        #expect(try find("ott", on: other).count == 10)
        let list = try other.searchList("ott", as: Toot.self, pageSize: 3)
        let recorder = StreamRecorder(await list.snapshots)
        _ = try store.queue.write { try $0.rebuildSearchIndex() }
        #expect(try other.searchIndexSchema()?.contains("prefix = '3'") == true)
        #expect(try find("ott", on: other).count == 10)
        // The other store writes through the new table.
        theirs.value = (0..<7).map { Toot(id: "t\($0)", content: "otter \($0)") }
        await theirFeed.refresh()
        #expect(try find("ott", on: other).count == 12)
        #expect(try find("ott").count == 12)
        #expect(try differences() == (0, 0, 0))
        #expect(try differences(other) == (0, 0, 0))
        await list.loadMore()
        await list.loadMore()
        await list.loadMore()
        let snapshots = await recorder.snapshots { Set($0.results.map(\.id)).count == 12 }
        SearchSnapshotChecks.check(snapshots, "live list across a rebuild")
        await list.close()
    }

    @Test func aRebuildOfAFileWhoseFullTextTableWasDroppedByHand() async throws {
        try await cache("a", (0..<5).map { Toot(id: "a\($0)", content: "otter \($0)") })
        try ForeignWriter.execute("DROP TABLE item_search;", on: test.path)
        let reopened = try test.store()
        #expect(try find("ott", on: reopened).isEmpty)
        let documents = try reopened.queue.write { try $0.rebuildSearchIndex() }
        #expect(documents == 5)
        #expect(try reopened.searchIndexSchema()?.contains("prefix = '3'") == true)
        #expect(try find("ott", on: reopened).count == 5)
        #expect(try differences(reopened) == (0, 0, 0))
        // The notes other writers leave still work after the rebuild.
        try ForeignWriter.execute(
            "UPDATE item SET payload = json_set(payload, '$.content', 'beaver') WHERE item_id = 'a1';", on: test.path)
        let again = try test.store()
        _ = try again.queue.write { try $0.repairSearchIndex() }
        #expect(try find("ott", on: again).count == 4)
        #expect(try find("beav", on: again).map(\.id) == ["a1"])
        #expect(try differences(again) == (0, 0, 0))
    }

    // MARK: - A live list whose match count crosses the limit

    @Test func aLiveListWhoseMatchesCrossTheLimitChangesExactlyAndLoadsMoreWithoutRepeats() async throws {
        let feed = try await cacheBroadOtters()
        let list = try store.searchList("otte", as: Toot.self, pageSize: 4)
        let recorder = StreamRecorder(await list.snapshots)
        #expect(await list.snapshot.results.allSatisfy { $0.match.position.order == .recency })
        await list.loadMore()
        // Down to 1,000: the re-read ranks.
        _ = try await feed.remove(id: "o3")
        let ranked = await recorder.snapshots { $0.results.first?.match.position.order == .relevance }
        SearchSnapshotChecks.check(ranked, "to relevance")
        await list.loadMore()
        await list.loadMore()
        var ids = await list.snapshot.results.map(\.id)
        #expect(Set(ids).count == ids.count && ids.count == 16)
        #expect(ids == (try find("otte", limit: 16)).map(\.id), "windows continue the ranked order")
        // Back over 1,000: the re-read lists newest first again.
        await feed.refresh()
        let all = try store.queue.read { try $0.connection.integer("SELECT count(*) FROM item_search") }
        let final = await recorder.snapshots { $0.results.first?.match.position.order == .recency }
        SearchSnapshotChecks.check(final, "back to recency (\(all ?? -1) documents)")
        ids = await list.snapshot.results.map(\.id)
        #expect(Set(ids).count == ids.count)
        await list.close()
    }
}
