import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Architecture rule 8: errors are states, not crashes.
@Suite(.limit(minutes: 3)) struct ErrorStateTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    struct ServerDown: Error {}

    @Test func aFirstFetchThatFailsWithNothingCachedIsTheErrorState() async throws {
        let feed = try test.feed(ScriptedSource { _ in throw ServerDown() })
        await feed.refresh()
        let snapshot = await feed.snapshot
        guard case .error(let error) = snapshot.content else {
            Issue.record("expected the error state, got \(snapshot.content)")
            return
        }
        #expect(error.kind == .source)
        #expect(snapshot.rows.isEmpty)
    }

    @Test func retryAfterAFailedFirstFetchLoadsTheFeed() async throws {
        let attempts = Locked(0)
        let feed = try test.feed(
            ScriptedSource { _ in
                if attempts.increment() == 1 { throw ServerDown() }
                return Page(items: .posts("p", 3), olderCursor: nil)
            })
        await feed.refresh()
        await feed.retry()
        let snapshot = await feed.snapshot
        #expect(snapshot.content == .content)
        #expect(snapshot.refresh == .idle)
        #expect(snapshot.ids == ["p0", "p1", "p2"])
    }

    /// `retry()` waits out the server's `Retry-After` on the store's clock: moved past it, the retry
    /// goes at once (real time would take a minute).
    @Test func retryWaitsOutTheServersRetryAfterOnTheStoresClock() async throws {
        let attempts = Locked(0)
        let feed = try test.feed(
            ScriptedSource { _ in
                if attempts.increment() == 1 {
                    throw HTTPSourceError.status(code: 503, retryAfter: 60, rateLimitReset: nil)
                }
                return Page(items: .posts("p", 3), olderCursor: nil)
            })
        await feed.refresh()
        #expect(attempts.value == 1)
        async let retried: Void = feed.retry()
        test.clock.advance(by: .seconds(60))
        await retried
        #expect(attempts.value == 2)
        #expect(await feed.snapshot.ids == ["p0", "p1", "p2"])
    }

    @Test func aRefreshThatFailsKeepsTheRowsAndReportsTheFailure() async throws {
        let attempts = Locked(0)
        let feed = try test.feed(
            ScriptedSource { _ in
                if attempts.increment() == 2 { throw ServerDown() }
                return Page(items: .posts("p", 3), olderCursor: nil)
            })
        await feed.refresh()
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.content == .content)
        #expect(snapshot.ids == ["p0", "p1", "p2"])
        guard case .failed = snapshot.refresh else {
            Issue.record("expected a failed refresh, got \(snapshot.refresh)")
            return
        }
        await feed.retry()
        #expect(await feed.snapshot.refresh == .idle)
        #expect(attempts.value == 3)
    }

    @Test func statesGoThroughLoadingInOrder() async throws {
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source)
        let recorder = await SnapshotRecorder(feed)
        async let refresh: Void = feed.refresh()
        await source.nextFetch().respond(Page(items: .posts("p", 3), olderCursor: "c"))
        await refresh
        let states = await recorder.snapshots(settlingOn: feed).map { "\($0.content)/\($0.refresh)" }
        #expect(states == ["initialLoading/idle", "initialLoading/loading", "content/idle"])
    }
}

/// A failure that a later commit made moot does not stay on screen.
extension ErrorStateTests {
    /// A next page fails; then a refresh replaces the feed with a list that has ended (no older
    /// cursor). After `retry()` the snapshot holds the new list, and its next page is `endReached`,
    /// not the failure.
    /// It guarded against the failure, which outranks `endReached`, staying for ever with a `retry()` that did nothing.
    @Test func aNextPageFailureThatARefreshMadeMootIsClearedOrRetried() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mode = Locked(Mode.ok)
        let source = ScriptedSource<Post> { request in
            if mode.value == .failOlder, case .olderThan = request { throw URLError(.timedOut) }
            return server.page(for: request)
        }
        let feed = try test.feed(source)
        await feed.refresh()
        mode.value = .failOlder
        await feed.loadNextPage()
        guard case .failed = await feed.snapshot.nextPage else {
            Issue.record("expected the next page to fail")
            return
        }
        mode.value = .ok
        server.items = .posts("m", 4)  // a short new list: no overlap, and it has ended
        await feed.refresh()
        await feed.retry()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == ["m0", "m1", "m2", "m3"])
        #expect(snapshot.nextPage == .endReached, "still \(snapshot.nextPage) after retry()")
    }
}
