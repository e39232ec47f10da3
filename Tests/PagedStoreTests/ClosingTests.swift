import Foundation
import PagedStoreTesting
import Testing

@testable import PagedStore

/// `FeedStore.close()`: the file is released at once, and every later use of the store's feeds fails
/// with a typed error instead of touching it.
@Suite struct ClosingTests {
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
