import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Architecture rules 1 and 7: offline first, and what is on disk is what was committed.
@Suite(.limit(minutes: 3)) struct OfflineFirstTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func theFirstSnapshotHoldsTheCachedRowsBeforeAnyFetch() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do {
            let feed = try test.feed(server.source)
            await feed.refresh()
        }
        let source = ScriptedSource<Post>()  // would hang if asked: proves nothing is fetched
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .always))
        var iterator = await feed.snapshots.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.content == .content)
        #expect(first.ids == (0..<10).map { "p\($0)" })
        #expect(first.refresh == .idle)
        #expect(source.requests.isEmpty)
    }

    @Test func paginationResumesFromThePersistedCursorAfterARelaunch() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do {
            let feed = try test.feed(server.source)
            await feed.refresh()
            await feed.loadNextPage()
        }
        let source = server.source
        let feed = try test.feed(source)
        await feed.loadNextPage()
        #expect(source.requests == [.olderThan(cursor: "p19")])
        #expect(await feed.snapshot.ids == (0..<30).map { "p\($0)" })
    }

    @Test func aFailedRefreshOfflineLeavesTheCachedRows() async throws {
        let server = ModelServer(.posts("p", 10), pageSize: 10)
        do { await (try test.feed(server.source)).refresh() }
        let offline = ScriptedSource<Post> { _ in throw URLError(.notConnectedToInternet) }
        let feed = try test.feed(offline, policy: FeedPolicy(refreshOnOpen: .always))
        await feed.start()
        let snapshot = await feed.snapshot
        #expect(snapshot.content == .content)
        #expect(snapshot.ids.count == 10)
        guard case .failed(let error) = snapshot.refresh else {
            Issue.record("refresh should have failed, is \(snapshot.refresh)")
            return
        }
        #expect(error.kind == .source)
        #expect(try test.recordOnDisk()?.lastError != nil)
    }

    @Test func startRefreshesOnlyWhenTheCacheIsOlderThanThePolicysAge() async throws {
        let server = ModelServer(.posts("p", 10), pageSize: 10)
        do { await (try test.feed(server.source)).refresh() }
        let fresh = server.source
        await (try test.feed(fresh, policy: FeedPolicy(refreshOnOpen: .whenOlderThan(seconds: 3600)))).start()
        #expect(fresh.requests.isEmpty)
        let stale = server.source
        await (try test.feed(stale, policy: FeedPolicy(refreshOnOpen: .whenOlderThan(seconds: 0)))).start()
        #expect(stale.requests == [.first])
    }
}
