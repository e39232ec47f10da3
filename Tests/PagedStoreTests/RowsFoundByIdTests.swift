import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Rows found by id, any number at once (``PageStore/items(withIDs:in:)`` reads 32 ids a
/// statement): hostile ids agree with one-at-a-time lookups on both sides of a statement's bound, a
/// statement's earlier bindings never leak into a later call, and refreshes whose ids repeat across
/// the bound leave the file consistent.
@Suite(.limit(minutes: 2)) struct RowsFoundByIdTests {
    /// Ids no test lists: empty, case twins, canonically equivalent twins, embedded NUL, long.
    static let hostileIDs: [String] = [
        "", "A", "a", "\u{E9}", "e\u{301}", "x\u{0}y", "x", "x\u{0}", "1", "01", " 1", "NULL",
        String(repeating: "long", count: 50_000), "🧵", "\u{FFFD}", "%", "_",
    ]

    /// Compares each asked id's row with what one statement for that id alone gives, byte for byte.
    @Test(arguments: [2, 17, 31, 32, 33, 64, 65, 100])
    func manyIdsAtOnceAgreeWithOneAtATime(padding: Int) throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("cache.db"))
        // Stored: every hostile id but "x\0" and "01", and padding ids "p0"…
        let stored = Self.hostileIDs.filter { $0 != "x\u{0}" && $0 != "01" } + (0..<padding).map { "p\($0)" }
        let items = stored.enumerated().map { offset, id in
            EncodedItem(itemID: id, payload: Data("{\"n\":\(offset)}".utf8))
        }
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try store.appendPage(items, page: Fixtures.olderPage(from: nil, to: "c1"), to: &feed)
        }
        // Asked: padding ids first so hostile ones straddle the 32 boundary, each hostile one twice
        // (once in each chunk), and a few missing ones.
        let asked =
            (0..<padding).map { "p\($0)" } + Self.hostileIDs + ["missing", "X"] + Self.hostileIDs.reversed()
        let (many, ones) = try queue.read { store -> ([String: StoredItem], [String: StoredItem]) in
            let feed = try #require(try store.feed(key: "home"))
            let many = try store.items(withIDs: asked, in: feed)
            var ones: [String: StoredItem] = [:]
            for id in asked { if let row = try store.items(withIDs: [id], in: feed)[id] { ones[id] = row } }
            return (many, ones)
        }
        // Swift compares strings by canonical equivalence, so "é" and "e\u{301}" are one key: the
        // bytes below tell which row each asked id got.
        for id in asked {
            let got = many[id].map { Array($0.itemID.utf8) }
            let one = ones[id].map { Array($0.itemID.utf8) }
            #expect(
                got == one,
                "asked \(Array(id.utf8).prefix(12)): many gives \(got.map { Array($0.prefix(12)) } as Any), one gives \(one.map { Array($0.prefix(12)) } as Any)"
            )
        }
        #expect(many.count == ones.count)
    }

    /// A statement cached with 32 bindings, used for 33 ids and then 2: no binding of the first call
    /// leaks into the second (the second asks ids the first did not).
    @Test func aShorterListAfterALongerOneFindsOnlyItsOwn() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: directory.path("cache.db"))
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try store.appendPage(
                Fixtures.items("a", count: 70), page: Fixtures.olderPage(from: nil, to: "c1"), to: &feed)
            let first = try store.items(withIDs: (0..<40).map { "a\($0)" }, in: feed)
            #expect(first.count == 40)
            let second = try store.items(withIDs: ["a65", "nope"], in: feed)
            #expect(Set(second.keys) == ["a65"])
            let third = try store.items(withIDs: ["nope", "nope2", "nope3"], in: feed)
            #expect(third.isEmpty)
            // Another feed's rows with the same ids are not this feed's.
            var other = try store.ensureFeed(key: "other")
            try store.appendPage(
                Fixtures.items("a", count: 3), page: Fixtures.olderPage(from: nil, to: "c1"), to: &other)
            let mine = try store.items(withIDs: ["a0", "a1", "a50"], in: other)
            #expect(Set(mine.keys) == ["a0", "a1"])
            #expect(mine.values.allSatisfy { $0.position < 3 * PageStore.positionStep })
        }
    }

    /// Refreshes a feed of `cached` posts with `page`, whose ids sit deep in the feed: no id is
    /// twice in the file, the file verifies, and its change record chains.
    private func refresh(cachedPosts cached: Int, with page: [Post]) async throws -> (FeedTestCase, Feed<Post>) {
        let test = try FeedTestCase()
        let pages = Locked([[Post].posts("old", cached), page])
        let source = ScriptedSource<Post> { _ in
            let next = pages.mutate { $0.isEmpty ? [] : $0.removeFirst() }
            return Page(items: next, olderCursor: next.isEmpty ? nil : "older")
        }
        let feed = try test.feed(source)
        await feed.refresh()
        #expect(try test.idsOnDisk().count == cached)
        await feed.refresh()
        let ids = try test.idsOnDisk()
        #expect(Set(ids).count == ids.count, "an id twice")
        let violations = try DatabaseQueue(path: test.path).read { try $0.verify() }
        #expect(violations.isEmpty, "\(violations)")
        try test.expectChangeRecordChains("home", "after the page")
        return (test, feed)
    }

    /// A refresh page of 70 items whose last 30 sit deep in the feed, looked up by id across a
    /// statement's 32: the merge moves none twice.
    @Test func aRefreshWhoseIdsSitDeepAcrossAStatementsBound() async throws {
        let page = [Post].posts("new", 40) + (70..<100).reversed().map { Post(id: "old\($0)", revision: 1) }
        let (test, feed) = try await refresh(cachedPosts: 100, with: page)
        #expect(await feed.snapshot.rows.count == (try test.idsOnDisk()).count)
    }

    /// A server page that lists ids twice, deep in the feed, on both sides of a statement's 32.
    @Test func aRefreshPageListingDeepIdsTwice() async throws {
        let deep = (80..<120).map { Post(id: "old\($0)", revision: 2) }
        let page =
            [Post].posts("new", 30) + deep + [Post(id: "old81", revision: 3), Post(id: "old115", revision: 3)]
        let (test, feed) = try await refresh(cachedPosts: 120, with: page)
        let snapshot = await feed.snapshot
        let ids = try test.idsOnDisk()
        #expect(snapshot.ids == ids || snapshot.rows.loadedRange.count < snapshot.rows.count)
    }

}
