import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Architecture rules 4 and 5: next page by cursor, no id twice, loops stopped; prefetch.
@Suite(.limit(minutes: 3)) struct NextPageTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func nextPageAppendsAtTheEndAndDropsKnownIds() async throws {
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source)
        async let refresh: Void = feed.refresh()
        await source.nextFetch().respond(Page(items: .posts("p", 5), olderCursor: "c1"))
        await refresh
        async let next: Void = feed.loadNextPage()
        let fetch = await source.nextFetch()
        #expect(fetch.request == .olderThan(cursor: "c1"))
        fetch.respond(Page(items: [Post(id: "p3"), Post(id: "p4"), Post(id: "q0"), Post(id: "q1")], olderCursor: "c2"))
        await next
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == ["p0", "p1", "p2", "p3", "p4", "q0", "q1"])
        #expect(snapshot.change.insertedRows.map { $0[1] } == [5, 6])
        #expect(try test.recordOnDisk()?.oldestCursor == "c2")
    }

    @Test func aRepeatedCursorStopsWithALoopError() async throws {
        let feed = try await feedWithFirstPage(next: { _ in Page(items: .posts("q", 3), olderCursor: "c1") })
        await feed.loadNextPage()
        let snapshot = await feed.snapshot
        guard case .failed(let error) = snapshot.nextPage else {
            Issue.record("expected a failed next page, got \(snapshot.nextPage)")
            return
        }
        #expect(error.kind == .paginationLoop)
        #expect(snapshot.ids.count == 5)
    }

    @Test func aServerThatAnswersOnlyKnownIdsIsFollowedThenStoppedWithALoopError() async throws {
        let feed = try await feedWithFirstPage(next: { _ in Page(items: .posts("p", 5), olderCursor: "c9") })
        await feed.loadNextPage()
        guard case .failed(let error) = await feed.snapshot.nextPage else {
            Issue.record("expected a failed next page")
            return
        }
        #expect(error.kind == .paginationLoop)
        // The first page of known ids moved the cursor on (progress, saved); the second repeated it.
        #expect(try test.recordOnDisk()?.oldestCursor == "c9")
        let pages = try DatabaseQueue(path: test.path).read { store in
            try store.pages(of: #require(try store.feed(key: "home")))
        }
        #expect(pages.count == 1, "pages of nothing new store no page row")
    }

    @Test(arguments: [[], [Post(id: "p3"), Post(id: "p4")]])
    func thePageThatEndsTheFeedIsStoredAsAPageOfNoRowsAskedWithTheLastCursor(items: [Post]) async throws {
        let feed = try await feedWithFirstPage(next: { _ in Page(items: items, olderCursor: nil) })
        await feed.loadNextPage()
        #expect(await feed.snapshot.nextPage == .endReached)
        #expect(await feed.snapshot.ids.count == 5)
        let pages = try DatabaseQueue(path: test.path).read { store in
            try store.pages(of: #require(try store.feed(key: "home")))
        }
        #expect(pages.map(\.rowCount) == [5, 0])
        #expect(pages.map(\.olderCursor) == ["c1", nil], "the first page keeps the cursor the server sent")
        #expect(pages.last?.request == .older)
        #expect(pages.last?.requestCursor == "c1")
        #expect(try test.recordOnDisk()?.endReached == true)
        #expect(try test.recordOnDisk()?.oldestCursor == nil)
    }

    @Test func aNilOlderCursorEndsTheFeedAndPrefetchThenFetchesNothing() async throws {
        let server = ModelServer(.posts("p", 15), pageSize: 10)
        let source = server.source
        let feed = try test.feed(source)
        await feed.refresh()
        await feed.loadNextPage()
        #expect(await feed.snapshot.nextPage == .endReached)
        await feed.rowDidAppear(14)
        await feed.loadNextPage()
        #expect(source.requests == [.first, .olderThan(cursor: "p9")])
    }

    @Test func rowDidAppearFetchesExactlyWhenFewerThanPrefetchDistanceRowsRemain() async throws {
        let server = ModelServer(.posts("p", 40), pageSize: 20)
        let source = server.source
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, prefetchDistance: 3))
        await feed.refresh()
        for row in 0...16 { await feed.rowDidAppear(row) }  // row 16 leaves 3 below: not yet
        #expect(source.requests == [.first])
        await feed.rowDidAppear(17)  // 2 below: fetch
        await feed.rowDidAppear(18)
        await feed.rowDidAppear(19)
        await feed.loadNextPage()  // joins the prefetch, or does the next one once it is done
        #expect(source.requests.filter { $0 == .olderThan(cursor: "p19") }.count == 1)
        #expect(await feed.snapshot.ids.count == 40)
    }

    @Test func aFailedNextPageWaitsForRetry() async throws {
        let attempts = Locked(0)
        let feed = try await feedWithFirstPage(next: { request in
            if attempts.increment() == 1 { throw URLError(.timedOut) }
            return Page(items: .posts("q", 3), olderCursor: nil)
        })
        await feed.loadNextPage()
        guard case .failed = await feed.snapshot.nextPage else {
            Issue.record("expected a failed next page")
            return
        }
        #expect(await feed.snapshot.ids.count == 5, "rows stay")
        await feed.rowDidAppear(4)
        #expect(attempts.value == 1, "prefetch waits for retry after a failure")
        await feed.retry()
        #expect(attempts.value == 2)
        #expect(await feed.snapshot.ids.count == 8)
        #expect(await feed.snapshot.nextPage == .endReached)
    }

    /// A feed whose first page is p0…p4 with older cursor c1, and whose next pages come from `next`.
    func feedWithFirstPage(next: @escaping @Sendable (PageRequest) throws -> Page<Post>) async throws -> Feed<Post> {
        let source = ScriptedSource<Post> { request in
            request == .first ? Page(items: .posts("p", 5), olderCursor: "c1") : try next(request)
        }
        let feed = try test.feed(source)
        await feed.refresh()
        return feed
    }
}

/// Servers that loop or hide their first page: next pages fail typed, and the feed stays pageable.
extension NextPageTests {
    /// Next pages that cycle cursors (A → B → A) or a server that answers every request with its
    /// first page: a typed paginationLoop, and retry() repeats it without looping.
    @Test func cyclingNextPageCursorsAndAFirstPageServerFailTyped() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let firstOnly = ScriptedSource<Post> { _ in server.page(for: .first) }
        let feed = try test.feed(firstOnly)
        await feed.refresh()
        await feed.loadNextPage()
        guard case .failed(let error) = await feed.snapshot.nextPage else {
            Issue.record("expected a failure, got \(await feed.snapshot.nextPage)")
            return
        }
        #expect(error.kind == .paginationLoop)
        await feed.retry()
        #expect(firstOnly.requests.count == 3)
        let cycling = ScriptedSource<Post> { request in
            switch request {
            case .olderThan("p9"): Page(items: .posts("q", 3), olderCursor: "B")
            case .olderThan("B"): Page(items: .posts("r", 3), olderCursor: "p9")
            default: server.page(for: request)
            }
        }
        let again = try test.feed(cycling)
        for _ in 0..<6 {
            await again.loadNextPage()
            if case .failed = await again.snapshot.nextPage { break }
        }
        guard case .failed(let cycle) = await again.snapshot.nextPage else {
            Issue.record("expected a failure, got \(await again.snapshot.nextPage)")
            return
        }
        #expect(cycle.kind == .paginationLoop)
        #expect(cycling.requests.count <= 5, "\(cycling.requests)")
    }

    /// An empty first page that carries an older cursor (a server whose top page was filtered
    /// empty) must not turn a cached feed into an `empty` feed that nothing can page further.
    @Test func anEmptyFirstPageWithACursorKeepsTheFeedPageable() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        let emptyTop = ScriptedSource<Post> { request in
            request == .first ? Page(items: [], olderCursor: "p9") : server.page(for: request)
        }
        let reopened = try test.feed(emptyTop)
        let recorder = await SnapshotRecorder(reopened)
        await reopened.refresh()
        try await ReferenceModelTests.check(recorder, reopened, test, "empty top page")
        let snapshot = await reopened.snapshot
        #expect(
            snapshot.content != .empty || snapshot.nextPage == .endReached,
            "the feed says empty while its next page (p9) still has items: \(snapshot.ids.count) rows")
    }

    @Test func anEmptyNewestPageThatPointsFurtherLoadsTheNextPageByItself() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let emptyTop = ScriptedSource<Post> { request in
            request == .first ? Page(items: [], olderCursor: "p9") : server.page(for: request)
        }
        let feed = try test.feed(emptyTop)  // nothing cached: the empty page is all it would have
        await feed.refresh()
        await feed.waitForBackgroundFetches()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == server.items[10..<20].map(\.id), "the list said empty while the server has items")
        #expect(snapshot.content == .content)
    }
}
