import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Where two features meet: each test is one bug found outside the project's own tests,
/// reproduced through the public API on a real cache file.
@Suite(.limit()) struct FeaturesMeetTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    // MARK: - Activities

    @Test func aPrefetchSupersededByARefreshThatFailsLeavesNoSpinnerAndPrefetchFiresAgain() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do { await (try test.feed(server.source)).refresh() }
        let source = ScriptedSource<Post> { request in
            if request == .first { throw URLError(.notConnectedToInternet) }
            return server.page(for: request)
        }
        let feed = try test.feed(source)
        await feed.rowDidAppear(9)  // the prefetch's task is created here…
        await feed.refresh()  // …and superseded before it runs; then the refresh fails
        await feed.waitUntilIdle()
        let snapshot = await feed.snapshot
        #expect(snapshot.nextPage == .idle, "nothing is in flight, so nothing may say loading")
        guard case .failed = snapshot.refresh else {
            Issue.record("expected the refresh to fail, got \(snapshot.refresh)")
            return
        }
        await feed.rowDidAppear(9)
        await feed.waitUntilIdle()
        #expect(await feed.snapshot.ids.count == 20, "prefetch fires again")
    }

    @Test(.limit(minutes: 2)) func retryDoesNotWaitOutAnOlderFailuresRetryAfter() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mode = Locked(Mode.ok)
        let source = ScriptedSource<Post> { request in
            switch (mode.value, request) {
            case (.failRefresh, .first):
                // Far longer than anything this test waits for: a retry that honoured it would stand out
                // on any machine, however loaded.
                throw FeedError(.source, message: "HTTP 503", retryAfter: 600)
            case (.failOlder, .olderThan):
                throw URLError(.timedOut)
            default:
                return server.page(for: request)
            }
        }
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        mode.value = .failRefresh
        await feed.refresh()
        mode.value = .ok
        await feed.refresh()
        let gap = try #require(await feed.snapshot.gaps.first)
        mode.value = .failOlder
        await feed.loadGap(gap)
        guard case .failed = try #require(await feed.snapshot.gaps.first).state else {
            Issue.record("expected the gap to show its failure")
            return
        }
        mode.value = .ok
        let started = ContinuousClock.now
        await feed.retry()
        #expect(ContinuousClock.now - started < .seconds(60), "the gap's failure had no Retry-After")
        let snapshot = await feed.snapshot
        #expect(snapshot.gaps.isEmpty)
        #expect(snapshot.ids == (0..<15).map { "n\($0)" } + (0..<10).map { "p\($0)" })
    }

    @Test func aGapFillThatFailsAfterARefreshSupersededItRecordsNoFailure() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await feedWithGap(source)
        let gap = try #require(await feed.snapshot.gaps.first)
        async let fill: Void = feed.loadGap(gap)
        let gapFetch = await source.nextFetch()
        #expect(try #require(await feed.snapshot.gaps.first).state == .loading)
        async let refresh: Void = feed.refresh()
        let refreshFetch = await source.nextFetch()
        gapFetch.fail(URLError(.timedOut))
        _ = await fill
        refreshFetch.respond(Page(items: .posts("n", 10), olderCursor: "n9"))
        _ = await refresh
        let snapshot = await feed.snapshot
        #expect(snapshot.gaps.map(\.state) == [.idle], "a superseded failure is dropped")
        #expect(snapshot.refresh == .idle)
    }

    // MARK: - Limits

    @Test func trimmingAfterAPrependNeverSkipsServerItems() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        server.items = .posts("n", 2) + server.items
        await feed.refresh()
        try await feed.trim(maxRows: 2)
        try await scrollToTheEnd(feed)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    @Test func maxRowsOnRefreshAndMaxAgeOnStartNeverSkipServerItems() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let limited = FeedPolicy(refreshOnOpen: .never, maxRows: 2, maxAge: 60)
        let feed = try test.feed(server.source, policy: limited)
        await feed.refresh()
        server.items = .posts("n", 2) + server.items
        await feed.refresh()
        test.clock.advance(by: .seconds(61))
        let relaunched = try test.feed(server.source, policy: limited)
        await relaunched.start()
        try await scrollToTheEnd(relaunched)
        #expect(await relaunched.snapshot.ids == server.items.map(\.id))
    }

    @Test func maxRowsBelowOnePageKeepsThePageJustFetched() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, maxRows: 3))
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.content == .content)
        #expect(snapshot.refresh == .idle)
        #expect(snapshot.ids.count == 10)
    }

    // MARK: - Gaps and local edits

    @Test func fillingAGapPutsItsRowsTogetherAboveALocalRowInsertedUnderIt() async throws {
        let feed = try await feedWithGap()
        try await feed.insert(Post(id: "local"), at: 10)
        let before = await feed.snapshot
        await feed.loadGap(try #require(before.gaps.first))
        let after = await feed.snapshot
        let fetched = (10..<15).map { "n\($0)" }
        #expect(Array(after.ids[10..<16]) == fetched + ["local"])
        #expect(after.change.insertedRows.map { $0[1] } == Array(10..<15))
        #expect(try BatchUpdate.apply(after.change, to: before.ids, new: after.ids) == after.ids)
    }

    @Test func removingTheRowAboveAGapKeepsTheGap() async throws {
        let feed = try await feedWithGap()
        try await feed.remove(id: "n9")
        let gap = try #require(await feed.snapshot.gaps.first, "the gap survives the edit")
        #expect(gap.afterRow == 8)
        await feed.loadGap(gap)
        let ids = await feed.snapshot.ids
        #expect(Array(ids[0..<14]) == (0..<9).map { "n\($0)" } + (10..<15).map { "n\($0)" })
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    @Test func removingEveryRowAboveAGapKeepsItAtTheTop() async throws {
        let feed = try await feedWithGap()
        for index in 0..<10 { try await feed.remove(id: "n\(index)") }
        let gap = try #require(await feed.snapshot.gaps.first)
        #expect(gap.afterRow == -1)
        await feed.loadGap(gap)
        #expect(Array(await feed.snapshot.ids.prefix(6)) == (10..<15).map { "n\($0)" } + ["p0"])
    }

    // MARK: - Refresh and next page

    @Test func aRefreshWithNothingNewStoresNoPage() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        for _ in 0..<5 { await feed.refresh() }
        let pages = try DatabaseQueue(path: test.path).read { store in
            try store.pages(of: #require(try store.feed(key: "home")))
        }
        #expect(pages.count == 1)
        #expect(await feed.snapshot.change == .none)
    }

    @Test func aPageNumberedListThatShiftedDownIsFollowedNotStopped() async throws {
        let server = TimelineModel(count: 13, pageSize: 5, byPageNumber: true, sectioned: false)
        let feed = try test.feed(ScriptedSource { request in server.page(for: request) })
        await feed.refresh()
        await feed.loadNextPage()
        server.publish(3)
        await feed.refresh()
        server.publish(3)
        await feed.refresh()
        try await scrollToTheEnd(feed)
        #expect(await feed.snapshot.nextPage == .endReached)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    // MARK: - Helpers

    /// A feed with rows n0…n9, a gap, then p0…p9 (a keepGap refresh after 15 new items arrived on
    /// a server of 30), opened again on `source`, or on the server.
    func feedWithGap(_ source: ScriptedSource<Post>? = nil) async throws -> Feed<Post> {
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do {
            let feed = try test.feed(server.source, policy: policy)
            await feed.refresh()
            server.items = .posts("n", 15) + server.items
            await feed.refresh()
        }
        return try test.feed(source ?? server.source, policy: policy)
    }
}

/// What a scripted source does next, switched by the test between calls (in a ``Locked``).
enum Mode { case ok, failRefresh, failOlder }
