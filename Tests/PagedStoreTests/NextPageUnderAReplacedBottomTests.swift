import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A next page in flight whose bottom row other writers replace, some of them leaving the feed's row
/// as the page read it (a writer by hand, a feed deleted and made again): the page is appended only
/// below the row it continues, which the commit reads again. Page-numbered server: the replaced
/// list's older cursor is the old one's ("c1").
@Suite(.limit(minutes: 3)) struct NextPageUnderAReplacedBottomTests: FeedRuleSuite {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A writer that bypasses PagedStore (`sqlite3`, which the docs say the engine meets) replaces the
    /// bottom row in place: same position, another item, the feed's row untouched.
    @Test func aHandWriterReplacesTheBottomRowInPlace() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let next = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        let before = try #require(try test.recordOnDisk())
        try ForeignWriter.execute(
            """
            UPDATE item SET item_id = 'n9', payload = json_set(payload, '$.id', 'n9')
            WHERE feed_id = \(before.id) AND item_id = 'p9';
            """, on: test.path)
        #expect(try test.recordOnDisk() == before, "the feed's row is the one the id was read with")
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<9) + ["n9"])
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await next.value
        #expect(
            try test.idsOnDisk() == Self.ids("p", 0..<9) + ["n9"],
            "p10... continue p9, not the n9 now at the bottom")
    }

    /// Another store deletes the feed (`pagedb delete`) and refills it with the same key: the new row
    /// may take the old id and positions, and the same cursor.
    @Test func theFeedDeletedAndMadeAgainWithTheSameKey() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let next = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        let old = try #require(try test.recordOnDisk())
        try DatabaseQueue(path: test.path).write { store in
            guard let record = try store.feed(key: "home") else { return }
            try store.deleteFeed(record)
        }
        let sourceB = ScriptedSource<Post> { _ in Page(items: Self.posts("n", 0..<10), olderCursor: "c1") }
        let feedB = try test.feed(sourceB)
        await feedB.refresh()
        let new = try #require(try test.recordOnDisk())
        #expect(new.id == old.id && new.bottomPosition == old.bottomPosition && new.oldestCursor == old.oldestCursor)
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await next.value
        #expect(try test.idsOnDisk() == Self.ids("n", 0..<10))
    }

    /// Another store's budget evicts the feed, then refills it with the same cursor.
    @Test func theFeedEvictedAndRefilled() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let next = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        try DatabaseQueue(path: test.path).write { store in
            guard var record = try store.feed(key: "home") else { return }
            try store.clearFeed(&record)
        }
        let sourceB = ScriptedSource<Post> { _ in Page(items: Self.posts("n", 0..<10), olderCursor: "c1") }
        let feedB = try test.feed(sourceB)
        await feedB.refresh()
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await next.value
        #expect(try test.idsOnDisk() == Self.ids("n", 0..<10))
        #expect(await feed.snapshot.ids == Self.ids("n", 0..<10))
    }

    /// Another store opens the feed with another cache version (its rows cleared), then refreshes.
    @Test func aCacheVersionClearThenARefillWithTheSameCursor() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let next = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        let sourceB = ScriptedSource<Post> { _ in Page(items: Self.posts("n", 0..<10), olderCursor: "c1") }
        let feedB = try test.feed(sourceB, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 7))
        await feedB.refresh()
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await next.value
        #expect(try test.idsOnDisk() == Self.ids("n", 0..<10))
    }

    /// The bottom row removed by hand and the feed's row written back as it was (a tool that
    /// restores the row it read): the bottom position now names no row.
    @Test func aHandWriterRemovesTheBottomRowAndRestoresTheFeedRow() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let next = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        let before = try #require(try test.recordOnDisk())
        try ForeignWriter.execute(
            "DELETE FROM item WHERE feed_id = \(before.id) AND item_id = 'p9';", on: test.path)
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await next.value
        let disk = try test.idsOnDisk()
        #expect(!disk.contains("p10"), "a page appended under a bottom row that is gone: \(disk)")
    }
}
