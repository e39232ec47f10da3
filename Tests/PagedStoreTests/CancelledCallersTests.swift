import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// A caller whose task is cancelled (a SwiftUI `.task` whose view went away) returns at once, even
/// while the server has not answered: nothing is left loading, and a fetch that nobody waits for any
/// more is dropped, while one that other callers share goes on for them.
@Suite(.limit()) struct CancelledCallersTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A feed of p0…p4 whose next page is asked with "c1", on a source whose fetches wait for the test.
    func feedWithFirstPage() async throws -> (Feed<Post>, ScriptedSource<Post>) {
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source)
        async let refresh: Void = feed.refresh()
        await source.nextFetch().respond(Page(items: .posts("p", 5), olderCursor: "c1"))
        await refresh
        return (feed, source)
    }

    /// Calls `call` in a task, cancels the task once its fetch waits in `source`, and waits for it to
    /// return (with the bug, for ever: the suite's time limit fails it). Returns the fetch, unanswered.
    func cancelledWhileFetching(
        _ call: @escaping @Sendable () async -> Void, from source: ScriptedSource<Post>
    ) async -> ScriptedSource<Post>.PendingFetch {
        let caller = Task { await call() }
        let fetch = await source.nextFetch()
        caller.cancel()
        await caller.value
        return fetch
    }

    @Test func aCancelledNextPageCallerReturnsAtOnceAndTheNextRowAtTheBottomPrefetches() async throws {
        let (feed, source) = try await feedWithFirstPage()
        let abandoned = await cancelledWhileFetching({ await feed.loadNextPage() }, from: source)
        #expect(await feed.snapshot.nextPage == .idle, "nobody waits for the next page any more")

        await feed.rowDidAppear(4)
        let prefetch = await source.nextFetch()
        #expect(prefetch.request == .olderThan(cursor: "c1"))
        abandoned.respond(Page(items: .posts("q", 3), olderCursor: "c2"))
        prefetch.respond(Page(items: .posts("r", 3), olderCursor: "c3"))
        await feed.waitUntilIdle()
        let expected = [Post].posts("p", 5).map(\.id) + [Post].posts("r", 3).map(\.id)
        #expect(await feed.snapshot.ids == expected, "the abandoned answer is dropped")
        #expect(try test.idsOnDisk() == expected)
    }

    @Test func aCancelledCallerLeavesTheSharedNextPageToTheCallersStillWaiting() async throws {
        let (feed, source) = try await feedWithFirstPage()
        let events = await feed.events
        let first = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        let second = Task { await feed.loadNextPage() }
        for await event in events where event.kind == .joined { break }
        first.cancel()
        await first.value
        #expect(await feed.snapshot.nextPage == .loading, "the second caller still waits for it")
        fetch.respond(Page(items: .posts("q", 3), olderCursor: "c2"))
        await second.value
        #expect(await feed.snapshot.ids.suffix(3) == ["q0", "q1", "q2"])
        #expect(source.requests.count == 2, "one refresh and one shared next page")
    }

    @Test func aNextPagePrefetchedByAppearingRowsGoesOnWhenAJoinedCallerIsCancelled() async throws {
        let (feed, source) = try await feedWithFirstPage()
        await feed.rowDidAppear(4)
        let fetch = await source.nextFetch()
        let caller = Task { await feed.loadNextPage() }
        caller.cancel()
        await caller.value
        #expect(await feed.snapshot.nextPage == .loading, "the reader at the bottom still wants it")
        fetch.respond(Page(items: .posts("q", 3), olderCursor: "c2"))
        await feed.waitUntilIdle()
        #expect(await feed.snapshot.ids.suffix(3) == ["q0", "q1", "q2"])
    }

    @Test func aCancelledRefreshCallerReturnsAtOnceAndTheLateAnswerIsDropped() async throws {
        let (feed, source) = try await feedWithFirstPage()
        let fetch = await cancelledWhileFetching({ await feed.refresh() }, from: source)
        #expect(await feed.snapshot.refresh == .idle)
        fetch.respond(Page(items: .posts("n", 3), olderCursor: nil))
        await feed.waitUntilIdle()
        let before = [Post].posts("p", 5).map(\.id)
        #expect(await feed.snapshot.ids == before)
        #expect(try test.idsOnDisk() == before)
    }

    @Test func aCancelledGapFillCallerReturnsAtOnce() async throws {
        _ = try await test.timelineWithAGap()
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        let gap = try #require(await feed.snapshot.gaps.first)
        let fetch = await cancelledWhileFetching({ await feed.loadGap(gap) }, from: source)
        #expect(await feed.snapshot.gaps.first?.state == .idle)
        fetch.respond(Page(items: .posts("x", 3), olderCursor: "x2"))
        #expect(await feed.snapshot.gaps.map(\.id) == [gap.id], "the late answer is dropped")
    }

    @Test func aCancelledRetryReturnsAtOnce() async throws {
        let (feed, source) = try await feedWithFirstPage()
        async let failing: Void = feed.loadNextPage()
        await source.nextFetch().fail(URLError(.timedOut))
        await failing
        _ = await cancelledWhileFetching({ await feed.retry() }, from: source)
        #expect(await feed.snapshot.nextPage == .idle)
    }

    @Test func aCallerCancelledBeforeItCallsFetchesNothing() async throws {
        let (feed, source) = try await feedWithFirstPage()
        let requests = source.requests.count
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await feed.loadNextPage()
            await feed.refresh()
            await feed.retry()
        }
        await caller.value
        #expect(source.requests.count == requests)
        let snapshot = await feed.snapshot
        #expect(snapshot.nextPage == .idle && snapshot.refresh == .idle)
    }
}

/// A cancelled caller is not a failure.
extension CancelledCallersTests {
    /// Found: a refresh whose caller's task is cancelled (a SwiftUI `.task` or `.refreshable` that
    /// ends when the view goes away) is recorded as a failed fetch: the CancellationError shows as
    /// `refresh: failed`, and on a feed with nothing cached as content `error`, though nothing
    /// failed. Feed+Refresh.swift refresh() catch / Feed+Completion.swift complete.
    @Test func cancellingTheCallersTaskIsNotAFailure() async throws {
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source)
        let abandoned = await cancelledWhileFetching({ await feed.refresh() }, from: source)
        let snapshot = await feed.snapshot
        #expect(snapshot.refresh == .idle, "refresh \(snapshot.refresh), content \(snapshot.content)")
        if case .error = snapshot.content { Issue.record("a cancelled first load shows an error screen") }
        abandoned.respond(Page(items: .posts("p", 3), olderCursor: nil))
    }
}

/// Cancelled callers with late answers, and the starter of a shared next page cancelled.
extension CancelledCallersTests: FeedRuleSuite {
    /// A cancelled refresh caller returns while the server has not answered; the late answer is
    /// dropped and nothing stays loading; the next refresh works.
    @Test func aCancelledRefreshCallerAndALateAnswer() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let recorder = await SnapshotRecorder(feed)
        let refresh = Task { await feed.refresh() }
        let fetch = await source.nextFetch()
        refresh.cancel()
        await refresh.value
        fetch.respond(Page(items: Self.posts("x", 0..<10), olderCursor: "c1"))
        #expect(await feed.snapshot.refresh != .loading)
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<10))
        let again = Task { await feed.refresh() }
        await source.nextFetch().respond(Page(items: [Post(id: "new")] + Self.posts("p", 0..<9), olderCursor: "c1"))
        await again.value
        #expect(try test.idsOnDisk() == ["new"] + Self.ids("p", 0..<10))
        try await check(recorder, feed, "cancelled refresh")
    }

    /// A cancelled next-page caller: the page is dropped, and the next call fetches and commits it.
    @Test func aCancelledNextPageCallerThenAnother() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let recorder = await SnapshotRecorder(feed)
        let next = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        next.cancel()
        await next.value
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        #expect(await feed.snapshot.nextPage != .loading)
        let again = Task { await feed.loadNextPage() }
        await source.nextFetch().respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await again.value
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<20))
        try await check(recorder, feed, "cancelled next page")
    }

    /// Two callers of one next page; the one that started it is cancelled: the other still gets it.
    @Test func theStarterOfANextPageIsCancelledWhileAnotherWaits() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let recorder = await SnapshotRecorder(feed)
        let events = await feed.events
        let first = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        let second = Task { await feed.loadNextPage() }
        for await event in events where event.kind == .joined { break }
        first.cancel()
        await first.value
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await second.value
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<20), "the waiting caller lost its page")
        try await check(recorder, feed, "starter cancelled")
    }
}
