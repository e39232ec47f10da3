import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Architecture rule 12: per-feed maximum rows and age; the oldest rows go first and the cursor moves with them.
@Suite(.limit(minutes: 3)) struct LimitsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func maxRowsTrimsWholeBottomPagesAfterARefreshAndPaginationResumesBelow() async throws {
        let server = ModelServer(.posts("p", 60), pageSize: 10)
        let source = server.source
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, maxRows: 25))
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        #expect(await feed.snapshot.rows.count == 30, "next pages are not trimmed: the user is reading them")

        server.items = .posts("new", 5) + server.items
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.rows.count == 25, "35 rows, trimmed by whole pages to 25 (new 5 + 20)")
        #expect(snapshot.ids.suffix(1) == ["p19"])
        #expect(snapshot.change.insertedRows.map { $0[1] } == Array(0..<5))
        #expect(snapshot.change.deletedRows.map { $0[1] } == Array(20..<30), "trimmed rows are deletions of old rows")
        #expect(try test.recordOnDisk()?.oldestCursor == "p19")
        #expect(try test.idsOnDisk() == snapshot.ids)

        await feed.loadNextPage()
        #expect(source.requests.last == .olderThan(cursor: "p19"), "pagination resumes right below the kept rows")
        #expect(await feed.snapshot.ids.suffix(10) == (20..<30).map { "p\($0)" })
    }

    @Test func aTrimThatRemovesAReloadedRowIsAFullReloadNotAnInvalidBatch() async throws {
        let server = ModelServer(.posts("p", 10), pageSize: 5)
        let policy = FeedPolicy(refreshOnOpen: .never, maxRows: 6)
        let source = ScriptedSource<Post> { request in
            guard request == .first else { return server.page(for: request) }
            // A refresh re-delivering the head down to p7, with p7 changed.
            var items = Array(server.items.prefix(8))
            items[7].revision = 1
            return Page(items: [Post(id: "new0")] + items, olderCursor: "p7")
        }
        try DatabaseQueue(path: test.path).write { store in
            var record = try store.ensureFeed(key: "home")
            for page in 0..<2 {
                let items = (0..<5).map { index -> EncodedItem in
                    let post = Post(id: "p\(page * 5 + index)")
                    return EncodedItem(itemID: post.id, payload: (try? ItemCodec<Post>.json.encode(post)) ?? Data())
                }
                try store.appendPage(
                    items,
                    page: PageWrite(
                        request: .older, requestCursor: record.oldestCursor, olderCursor: "p\(page * 5 + 4)",
                        newerCursor: nil),
                    to: &record)
            }
            record.loaded = true
            try store.save(&record)
        }
        let reopened = try test.feed(source, policy: policy)
        let before = await reopened.snapshot.ids
        await reopened.refresh()
        let snapshot = await reopened.snapshot
        let change = snapshot.change
        let deleted = Set(change.deletedRows.map { $0[1] })
        #expect(change.reloadedRows.allSatisfy { !deleted.contains($0[1]) }, "no row is both reloaded and deleted")
        #expect(try BatchUpdate.apply(change, to: before, new: snapshot.ids) == snapshot.ids)
        #expect(snapshot.rows.count <= 6)
    }

    @Test func maxAgeTrimsStalePagesWhenTheFeedStarts() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do {
            let feed = try test.feed(server.source)
            await feed.refresh()
            await feed.loadNextPage()
        }
        // Age the bottom page by hand, as if it was fetched a day ago.
        try DatabaseQueue(path: test.path).write { store in
            try store.connection.execute("UPDATE page SET fetched_at = fetched_at - 86400000 WHERE page_no = 1")
        }
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, maxAge: 3600))
        await feed.start()
        let snapshot = await feed.snapshot
        #expect(snapshot.rows.count == 10)
        #expect(snapshot.change.deletedRows.map { $0[1] } == Array(10..<20))
        #expect(try test.recordOnDisk()?.oldestCursor == "p9")
    }

    /// A page's age is read on the store's clock: the page fetched before the clock passed the
    /// policy's maximum age goes when the feed starts, and not a moment earlier.
    @Test func maxAgeCountsOnTheStoresClock() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, maxAge: 3600)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        test.clock.advance(by: .seconds(1_800))
        await feed.loadNextPage()
        test.clock.advance(by: .seconds(1_801))
        await feed.start()
        #expect(await feed.snapshot.ids == (0..<20).map { "p\($0)" }, "the bottom page is not an hour old yet")
        test.clock.advance(by: .seconds(1_800))
        let relaunched = try test.feed(server.source, policy: policy)
        await relaunched.start()
        #expect(await relaunched.snapshot.ids == (0..<10).map { "p\($0)" }, "the bottom page is an hour old")
    }
}

/// A trim keeps rows while the feed had rows.
extension LimitsTests {
    /// A trim keeps at least the first page with rows (``TrimRule``): when the top page's rows were
    /// all removed locally, `trim(maxRows: 0)` still leaves rows, so a feed with cached rows and more
    /// on the server never shows `empty` (a list with no rows never calls `rowDidAppear`, so nothing
    /// would load again).
    /// It guarded against the trim keeping the emptied top page and deleting every other row.
    @Test func trimmingNeverLeavesAFeedEmptyWhileItHadRows() async throws {
        let server = ModelServer(.posts("p", 40), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        for index in 0..<10 { try await feed.remove(id: "p\(index)") }
        try await feed.trim(maxRows: 0)
        let snapshot = await feed.snapshot
        #expect(snapshot.rows.count > 0, "content \(snapshot.content), next page \(snapshot.nextPage)")
    }
}

/// A policy whose maximum age is not finite.
extension LimitsTests: FeedRuleSuite {
    /// A policy with an infinite or NaN maxAge opens (and reopens) without an error.
    @Test(arguments: [Double.infinity, Double.nan]) func aPolicyWithANonFiniteMaxAgeOpens(maxAge: Double) async throws {
        let source = ScriptedSource<Post> { _ in Page(items: Self.posts("p", 0..<3), olderCursor: nil) }
        let policy = FeedPolicy(refreshOnOpen: .never, maxAge: maxAge)
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        _ = try test.feed(source, policy: policy)
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<3))
    }
}
