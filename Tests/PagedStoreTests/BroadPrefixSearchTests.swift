import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A word being typed that matches more than the search's limit lists its matches newest first
/// (``SearchRanking``); a narrower or finished one ranks them, and windows keep the order the first
/// one ran in.
@Suite(.limit(minutes: 1)) struct BroadPrefixSearchTests {
    let test: FeedTestCase
    let store: FeedStore
    let feed: Feed<Toot>

    init() async throws {
        test = try FeedTestCase()
        store = try test.store()
        // Five otters, the longer posts rank lower; one ottoman.
        let toots =
            (0..<5).map { Toot(id: "otter\($0)", content: "otter " + String(repeating: "river ", count: $0 * 3)) }
            + [Toot(id: "ottoman", content: "an ottoman")]
        feed = try store.feed(
            "home", source: ScriptedSource<Toot> { _ in Page(items: toots, olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
    }

    func find(
        _ text: String, recent: Bool = false, after: CachedSearch.Match? = nil, limit: Int = 50, broadAt: Int = 3
    ) throws -> [CachedSearch.Match] {
        try store.queue.read { file in
            try CachedSearch.find(
                text, in: file, feeds: nil, recent: recent, after: after, limit: limit, broadPrefixMatches: broadAt)
        }
    }

    @Test func aBroadWordBeingTypedListsNewestFirst() throws {
        let typed = try find("ott")
        #expect(typed.map(\.id) == (try find("ott", recent: true)).map(\.id))
        #expect(typed.count == 6 && typed.allSatisfy { $0.position.order == .recency && $0.position.rank == 0 })
        let ranked = try find("ott", broadAt: 6)
        #expect(ranked.allSatisfy { $0.position.order == .relevance }, "six matches are not more than six")
        #expect(Set(ranked.map(\.id)) == Set(typed.map(\.id)))
    }

    @Test func aFinishedOrNarrowWordIsRanked() throws {
        let finished = try find("otter ")
        #expect(finished.map(\.id) == ["otter0", "otter1", "otter2", "otter3", "otter4"], "the shortest post first")
        #expect(finished.allSatisfy { $0.position.order == .relevance })
        #expect(try find("otto").map(\.position.order) == [.relevance])
        #expect(try find("otter riv", broadAt: 4).map(\.position.order) == Array(repeating: .relevance, count: 4))
        #expect(try find("otter riv").map(\.position.order) == Array(repeating: .recency, count: 4))
    }

    @Test func aBroadWordsFirstWindowIsTheNewestItCounted() async throws {
        // 51 otters in all, more than one statement's 32 documents in the window.
        let more = try store.feed(
            "more",
            source: ScriptedSource<Toot> { _ in
                Page(items: (0..<45).map { Toot(id: "more\($0)", content: "otter \($0)") }, olderCursor: nil)
            }, policy: FeedPolicy(refreshOnOpen: .never))
        await more.refresh()
        let newest = try find("ott", recent: true, limit: 40).map(\.id)
        for limit in [1, 32, 33, 40] {
            let typed = try find("ott", limit: limit, broadAt: 39)
            #expect(typed.map(\.id) == Array(newest.prefix(limit)), "limit \(limit)")
            #expect(typed.allSatisfy { $0.position.order == .recency })
        }
    }

    @Test func aSearchThatAskedForRecencyKeepsIt() throws {
        #expect(try find("otter ", recent: true).allSatisfy { $0.position.order == .recency })
        #expect(try find("ott", recent: true, broadAt: 100).allSatisfy { $0.position.order == .recency })
    }

    @Test func windowsContinueInTheOrderTheFirstOneRanIn() async throws {
        let first = try find("ott", limit: 2)
        #expect(first.map(\.position.order) == [.recency, .recency])
        // The matches fall to the limit: a new search ranks, the open one goes on newest first.
        let last = try #require(first.last)
        #expect(first.map(\.id) == ["ottoman", "otter4"], "the last indexed first")
        for id in ["otter0", "otter1", "otter2"] { _ = try await feed.remove(id: id) }
        #expect(try find("ott").allSatisfy { $0.position.order == .relevance })
        let rest = try find("ott", after: last, limit: 50)
        let below = try find("ott", recent: true).filter { $0.position.doc < last.position.doc }
        #expect(rest.map(\.id) == below.map(\.id))
        #expect(!rest.isEmpty && rest.allSatisfy { $0.position.order == .recency })
    }

    @Test func reindexGivesAnIndexMadeWithoutPrefixesItsPrefixIndex() async throws {
        try store.makeSearchIndexWithoutPrefixes()
        #expect(try store.searchIndexSchema()?.contains("prefix") == false)
        let before = try find("ott").map(\.id)
        #expect(before.count == 6, "an index without prefixes still finds words being typed")
        _ = try store.queue.write { try $0.rebuildSearchIndex() }
        #expect(try store.searchIndexSchema()?.contains("prefix = '3'") == true)
        #expect(Set(try find("ott").map(\.id)) == Set(before))
        #expect(try find("otter ").map(\.id) == ["otter0", "otter1", "otter2", "otter3", "otter4"])
    }
}
