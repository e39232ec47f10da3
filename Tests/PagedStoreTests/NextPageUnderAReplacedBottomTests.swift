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

    /// Seeds p0…p9 (older cursor "c1"), holds a next page's fetch while `replace` runs, then answers
    /// it with p10…p19 and waits for the page.
    private func nextPage(answeredAfter replace: () async throws -> Void) async throws -> Feed<Post> {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let next = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        try await replace()
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await next.value
        return feed
    }

    /// Another store fills "home" with n0…n9 and the old list's older cursor, "c1".
    private func refillWithTheSameCursor(policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never)) async throws {
        let source = ScriptedSource<Post> { _ in Page(items: Self.posts("n", 0..<10), olderCursor: "c1") }
        await (try test.feed(source, policy: policy)).refresh()
    }

    /// A writer that bypasses PagedStore (`sqlite3`) replaces the bottom row in place: same
    /// position, another item, the feed's row untouched.
    @Test func aHandWriterReplacesTheBottomRowInPlace() async throws {
        _ = try await nextPage {
            let before = try #require(try test.recordOnDisk())
            try ForeignWriter.execute(
                """
                UPDATE item SET item_id = 'n9', payload = json_set(payload, '$.id', 'n9')
                WHERE feed_id = \(before.id) AND item_id = 'p9';
                """, on: test.path)
            #expect(try test.recordOnDisk() == before, "the feed's row is the one the id was read with")
        }
        #expect(
            try test.idsOnDisk() == Self.ids("p", 0..<9) + ["n9"], "p10… continue p9, not the n9 now at the bottom")
    }

    /// The bottom row removed by hand, the feed's row left as it was: its bottom position names no
    /// row.
    @Test func aHandWriterRemovesTheBottomRowAndLeavesTheFeedRow() async throws {
        _ = try await nextPage {
            let before = try #require(try test.recordOnDisk())
            try ForeignWriter.execute(
                "DELETE FROM item WHERE feed_id = \(before.id) AND item_id = 'p9';", on: test.path)
        }
        let disk = try test.idsOnDisk()
        #expect(!disk.contains("p10"), "a page appended under a bottom row that is gone: \(disk)")
    }

    /// Another store deletes the feed (`pagedb delete`) and fills it again with the same key: the new
    /// row may take the old id, positions and cursor.
    @Test func theFeedDeletedAndMadeAgainWithTheSameKey() async throws {
        _ = try await nextPage {
            let old = try #require(try test.recordOnDisk())
            try DatabaseQueue(path: test.path).write { store in
                guard let record = try store.feed(key: "home") else { return }
                try store.deleteFeed(record)
            }
            try await refillWithTheSameCursor()
            let new = try #require(try test.recordOnDisk())
            #expect(
                new.id == old.id && new.bottomPosition == old.bottomPosition && new.oldestCursor == old.oldestCursor)
        }
        #expect(try test.idsOnDisk() == Self.ids("n", 0..<10))
    }

    /// Another store's budget evicts the feed's rows, then fills it again with the same cursor.
    @Test func theFeedEvictedAndFilledAgain() async throws {
        let feed = try await nextPage {
            try DatabaseQueue(path: test.path).write { store in
                guard var record = try store.feed(key: "home") else { return }
                try store.clearFeed(&record)
            }
            try await refillWithTheSameCursor()
        }
        #expect(try test.idsOnDisk() == Self.ids("n", 0..<10))
        #expect(await feed.snapshot.ids == Self.ids("n", 0..<10))
    }

    /// Another store opens the feed with another cache version (its rows cleared), then refreshes.
    @Test func aCacheVersionClearThenTheSameCursor() async throws {
        _ = try await nextPage {
            try await refillWithTheSameCursor(policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 7))
        }
        #expect(try test.idsOnDisk() == Self.ids("n", 0..<10))
    }
}
