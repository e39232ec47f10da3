import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A broad word being typed lists, window by window, what a search asked for recency lists: under
/// every feed filter, with shared items and documents no row shows, at limits around a statement's
/// 32 documents and around the default rule's count.
@Suite(.limit(minutes: 2)) struct BroadPrefixWindowsTests {
    func cache<Item: FeedItem & Codable>(_ key: String, _ items: [Item], on store: FeedStore) async throws {
        let feed = try store.feed(
            key, source: ScriptedSource<Item> { _ in Page(items: items, olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
    }

    /// A prefix that lists newest first gives, window by window, what a search asked for recency
    /// gives: with feed filters, shared items, orphan documents, limits around 32 and the rule's count.
    @Test func aBroadPrefixListsWhatRecencyListsUnderEveryFilterAndLimit() async throws {
        let test = try FeedTestCase()
        let store = try test.store()
        try await cache("a", (0..<30).map { Toot(id: "a\($0)", content: "otter \($0)") }, on: store)
        try await cache("s1", (0..<20).map { SharedToot(id: "s\($0)", content: "otter shared \($0)") }, on: store)
        try await cache("b", (0..<30).map { Toot(id: "b\($0)", content: "otter \($0) river") }, on: store)
        try await cache(
            "s2", (10..<25).map { SharedToot(id: "s\($0)", content: "otter shared \($0)") }, on: store)
        let feedA = try #require(try store.queue.read { try $0.feed(key: "a")?.id })
        // Orphans among the newest: no search_doc row, an owner no feed has, a row the feed lost.
        try ForeignWriter.execute(
            """
            INSERT INTO search_doc (doc, owner, item_id) VALUES (5000, 'f\(feedA)', 'gone'), (5002, 'snope', 'x');
            INSERT INTO item_search (rowid, body) VALUES (5000, 'otter'), (5001, 'otter'), (5002, 'otter'),
                (4999, 'otter');
            """, on: test.path)
        let reopened = try test.store()
        func find(
            _ feeds: [String]?, recent: Bool, after: CachedSearch.Match?, limit: Int, broadAt: Int
        ) throws -> [CachedSearch.Match] {
            try reopened.queue.read { file in
                try CachedSearch.find(
                    "ott", in: file, feeds: feeds, recent: recent, after: after, limit: limit,
                    broadPrefixMatches: broadAt)
            }
        }
        for feeds in [nil, ["a"], ["b"], ["s1"], ["s2"], ["a", "s2"], ["nofeed"]] as [[String]?] {
            let all = try find(feeds, recent: true, after: nil, limit: 10_000, broadAt: 0).map {
                "\($0.feedKey)/\($0.id)"
            }
            for broadAt in [0, 1, 8, 20, 31, 32, 33, 40, 60] {
                for limit in [1, 2, 7, 8, 9, 23, 24, 25, 31, 32, 33, 34, 41, 64, 65, 200] {
                    let typed = try find(feeds, recent: false, after: nil, limit: limit, broadAt: broadAt)
                    let context = "feeds \(feeds ?? []) broadAt \(broadAt) limit \(limit)"
                    guard typed.first?.position.order == .recency else { continue }
                    #expect(typed.map { "\($0.feedKey)/\($0.id)" } == Array(all.prefix(limit)), "\(context)")
                    // The next windows continue in the same order without repeats.
                    var listed = typed.map { "\($0.feedKey)/\($0.id)" }
                    var after = typed.last
                    while let last = after {
                        let next = try find(feeds, recent: false, after: last, limit: limit, broadAt: broadAt)
                        listed += next.map { "\($0.feedKey)/\($0.id)" }
                        after = next.last
                    }
                    #expect(listed == all, "\(context): windows")
                }
            }
        }
    }
    /// Limits around the default rule's 1,001 (and 1,001 less the filter's margin of 8).
    @Test func limitsAroundTheDefaultRulesCount() async throws {
        let test = try FeedTestCase()
        let store = try test.store()
        try await cache("a", (0..<700).map { Toot(id: "a\($0)", content: "otter \($0)") }, on: store)
        try await cache("b", (0..<500).map { Toot(id: "b\($0)", content: "otter \($0)") }, on: store)
        func find(_ feeds: [String]?, recent: Bool, after: CachedSearch.Match?, limit: Int) throws -> [String] {
            try store.queue.read { file in
                try CachedSearch.find("ot", in: file, feeds: feeds, recent: recent, after: after, limit: limit)
            }.map { "\($0.feedKey)/\($0.id)" }
        }
        for feeds in [nil, ["a"], ["b"], ["a", "b"]] as [[String]?] {
            let all = try find(feeds, recent: true, after: nil, limit: 10_000)
            for limit in [992, 993, 994, 1_000, 1_001, 1_002, 1_199, 1_200, 1_201] {
                #expect(
                    try find(feeds, recent: false, after: nil, limit: limit) == Array(all.prefix(limit)),
                    "feeds \(feeds ?? []) limit \(limit)")
            }
        }
    }
}
