import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// `FeedStore.close()`: the file is released at once, and every later use of the store's feeds fails
/// with a typed error instead of touching it.
@Suite(.limit()) struct ClosingTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func closingReleasesTheFileAndLaterCallsFailWithClosed() async throws {
        let server = ModelServer(.posts("p", 12), pageSize: 5)
        let source = server.source
        let store = try test.store()
        let feed = try test.feed(source, store: store)
        await feed.refresh()
        let requestsBeforeClose = source.requests.count

        store.close()
        store.close()  // idempotent
        #expect(store.isClosed)
        // The connection is closed: SQLite removed the write-ahead log with the last connection, and
        // the file can be deleted (sign-out) while the feed object lives on.
        #expect(!FileManager.default.fileExists(atPath: test.path + "-wal"))
        try FileManager.default.removeItem(atPath: test.path)

        for edit in [{ try await feed.remove(id: "p1") }, { try await feed.update(Post(id: "p2", revision: 1)) }] {
            do {
                _ = try await edit()
                Issue.record("an edit on a closed store succeeded")
            } catch let error as FeedError {
                #expect(error.storageKind == .closed)
            }
        }
        await #expect(throws: FeedError.self) { try await feed.insert(Post(id: "new"), at: 0) }

        await feed.refresh()
        await feed.loadNextPage()
        #expect(source.requests.count == requestsBeforeClose, "a closed store fetched")
        let snapshot = await feed.snapshot
        #expect(snapshot.refresh == .failed(ClosingTests.closed))
        #expect(snapshot.nextPage == .failed(ClosingTests.closed))
        #expect(snapshot.ids == [Post].posts("p", 5).map(\.id), "the last snapshot stays a valid value")
        #expect(!FileManager.default.fileExists(atPath: test.path), "a closed store created its file again")

        // A new store at the same path starts from nothing.
        let reopened = try test.feed(server.source)
        #expect(await reopened.snapshot.rows.count == 0)
    }

    @Test func aFetchInFlightWhenTheStoreClosesFailsWhenItWouldWrite() async throws {
        let source = ScriptedSource<Post>()
        let store = try test.store()
        let feed = try test.feed(source, store: store)
        async let refreshed: Void = feed.refresh()
        let fetch = await source.nextFetch()
        store.close()
        fetch.respond(Page(items: .posts("p", 3), olderCursor: nil))
        await refreshed
        let snapshot = await feed.snapshot
        #expect(snapshot.refresh == .failed(ClosingTests.closed))
        #expect(snapshot.rows.count == 0)
    }

    static var closed: FeedError { Feed<Post>.closedError }
}

extension ClosingTests {
    @Test(.limit())
    func everyCallWithAFetchInFlightReturnsWhenTheStoreClosesAndNothingIsWritten() async throws {
        let keys = (0..<4).map { "feed\($0)" }
        for key in keys {
            // Each feed: n0…n9, a gap, p0…p9 (see timelineWithAGap), written by a first launch.
            let server = ModelServer(.posts("p", 30), pageSize: 10)
            let feed = try test.feed(server.source, policy: Self.gapPolicy, key: key)
            await feed.refresh()
            server.items = .posts("n", 25) + server.items
            await feed.refresh()
        }
        let before = try keys.map { try test.idsOnDisk(key: $0) }

        let store = try test.store()
        var feeds: [Feed<Post>] = []
        var held: [ScriptedSource<Post>.PendingFetch] = []
        var calls: [Task<Void, Never>] = []
        for key in keys {
            let source = ScriptedSource<Post>()
            let feed = try test.feed(source, policy: Self.gapPolicy, key: key, store: store)
            feeds.append(feed)
            let gap = try #require(await feed.snapshot.gaps.first)
            calls.append(Task { await feed.loadGap(gap) })
            held.append(await source.nextFetch())
            calls.append(Task { await feed.loadNextPage() })
            held.append(await source.nextFetch())
            calls.append(Task { await feed.loadNextPage() })  // joins the one in flight
            calls.append(Task { await feed.refresh() })
            held.append(await source.nextFetch())
        }
        store.close()
        // No fetch has answered: the close alone ends every call.
        for call in calls { await call.value }
        for feed in feeds {
            let snapshot = await feed.snapshot
            #expect(snapshot.refresh == .failed(Self.closed) && snapshot.nextPage == .failed(Self.closed))
            #expect(!snapshot.gaps.contains { $0.state == .loading })
        }
        for fetch in held { fetch.respond(Page(items: .posts("x", 10), olderCursor: "x9")) }
        for feed in feeds { await feed.waitUntilIdle() }
        #expect(try keys.map { try test.idsOnDisk(key: $0) } == before, "nothing is written after the close")
        let reopened = try test.store()
        for (key, ids) in zip(keys, before) {
            let feed = try reopened.feed(key, source: ScriptedSource<Post>(), policy: Self.gapPolicy)
            #expect(await feed.snapshot.ids == ids, "the file reopens with the rows from before")
        }
    }

    static var gapPolicy: FeedPolicy { FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap) }
}
