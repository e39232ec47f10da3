import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A read-only store (a widget, an app extension) shows the cache and follows its writers live, and
/// never creates, migrates or writes the file: each write-type call fails with a typed error before
/// it fetches, and what a writer would save (the reading place, a failure, removed rows) is not saved.
@Suite(.limit()) struct ReadOnlyStoreTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// The database and its log, byte for byte: what a write would change. The `-shm` index is left
    /// out, because every reader takes its read marks there, and so is an empty log, which a reader
    /// of a file whose writers closed creates (a log with nothing in it changes nothing).
    func written() -> [String: Data] {
        FileFingerprint(test.path).files.filter { $0.key == "" || ($0.key == "-wal" && !$0.value.isEmpty) }
    }

    /// A file with the feed `home` holding `count` posts, written by the app's store.
    func cache(_ count: Int = 5) async throws -> ModelServer {
        let server = ModelServer(.posts("p", count), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        return server
    }

    /// A read-only feed on the file, with a source that records every fetch it is asked for.
    func readOnlyFeed(
        _ source: ScriptedSource<Post> = ScriptedSource(), policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never),
        key: String = "home"
    ) throws -> Feed<Post> {
        try FeedStore(path: test.path, readOnly: true).feed(key, source: source, policy: policy)
    }

    @Test func aMissingFileIsAClearErrorAndNoFileIsMade() throws {
        #expect {
            try FeedStore(path: test.path, readOnly: true)
        } throws: { error in
            (error as? StorageError)?.kind == .cannotOpen
        }
        #expect(!FileManager.default.fileExists(atPath: test.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: test.directory.url.path).isEmpty)
    }

    @Test(arguments: [(version: 1, kind: StorageError.Kind.schemaTooOld), (999, .schemaTooNew)])
    func aSchemaOfAnotherVersionIsAClearErrorAndTheFileIsUnchanged(version: Int, kind: StorageError.Kind) async throws {
        _ = try await cache()
        try DatabaseQueue(path: test.path).write { store in
            try store.connection.execute("PRAGMA user_version = \(version)")
        }
        let before = written()
        #expect {
            try FeedStore(path: test.path, readOnly: true)
        } throws: { error in
            (error as? StorageError)?.kind == kind
        }
        #expect(written() == before)
    }

    @Test func aFeedTheFileDoesNotHaveOpensEmptyAndCreatesNoRow() async throws {
        _ = try await cache()
        let before = written()
        let feed = try readOnlyFeed(key: "search")
        await feed.start()
        let snapshot = await feed.snapshot
        #expect(snapshot.rows.isEmpty)
        #expect(snapshot.content == .initialLoading)
        #expect(try test.recordOnDisk(key: "search") == nil)
        #expect(written() == before)
    }

    @Test func theCachedRowsShowWithoutAFetch() async throws {
        let server = try await cache()
        let source = ScriptedSource<Post>()
        let feed = try readOnlyFeed(source, policy: FeedPolicy(refreshOnOpen: .always))
        await feed.start()
        #expect(await feed.snapshot.ids == server.items.map(\.id))
        #expect(source.requests.isEmpty, "start() fetches nothing in a read-only store")
        #expect(await feed.snapshot.refresh == .idle)
    }

    @Test func everyWriteTypeCallFailsWithATypedErrorWithoutFetching() async throws {
        _ = try await cache(12)
        let before = written()
        let source = ScriptedSource<Post>()
        let feed = try readOnlyFeed(source)
        await feed.refresh()
        await feed.loadNextPage()
        let snapshot = await feed.snapshot
        guard case .failed(let refreshError) = snapshot.refresh, case .failed(let nextPageError) = snapshot.nextPage
        else {
            Issue.record("refresh \(snapshot.refresh), next page \(snapshot.nextPage): both should have failed")
            return
        }
        #expect(refreshError.storageKind == .readOnly && nextPageError.storageKind == .readOnly)
        let edits: [@Sendable () async throws -> Void] = [
            { try await feed.insert(Post(id: "mine"), at: 0) },
            { _ = try await feed.update(Post(id: "p1", revision: 2)) },
            { _ = try await feed.remove(id: "p1") },
            { _ = try await feed.trim(maxRows: 2) },
            { _ = try await feed.edit(id: "p1", { $0.revision = 3 }, commit: { _ in Issue.record("committed") }) },
        ]
        for edit in edits {
            await #expect {
                try await edit()
            } throws: { error in
                (error as? FeedError)?.storageKind == .readOnly
            }
        }
        #expect(source.requests.isEmpty, "nothing was fetched")
        #expect(written() == before)
    }

    @Test func theReadingPositionAndFailuresAreNotSaved() async throws {
        _ = try await cache(12)
        let before = written()
        let feed = try readOnlyFeed(policy: FeedPolicy(refreshOnOpen: .never, keepsReadingPosition: true))
        await feed.setVisibleRows(4..<8)
        // Near the bottom: a writer's feed would prefetch; this one leaves the next page alone.
        await feed.setVisibleRows(9..<12)
        try await feed.saveReadingPosition()
        await feed.refresh()
        #expect(await feed.snapshot.nextPage == .idle)
        #expect(written() == before)
        #expect(try test.recordOnDisk()?.lastError == nil)
    }

    @Test func rowsThatDoNotDecodeStayInTheFile() async throws {
        _ = try await cache()
        try DatabaseQueue(path: test.path).write { store in
            try store.connection.execute("UPDATE item SET payload = '{\"broken' WHERE item_id = 'p3'")
        }
        let before = written()
        let feed = try readOnlyFeed()
        let snapshot = await feed.snapshot
        let damaged = try #require(try test.idsOnDisk().firstIndex(of: "p3"))
        #expect(snapshot.rows.loadedRange == 0..<damaged, "the window stops above the row it cannot decode")
        #expect(snapshot.rows.count == 5, "the row is not removed")
        #expect(written() == before)
    }

    @Test func aReadOnlyFeedFollowsAnotherStoresWrite() async throws {
        let server = try await cache()
        let widget = try readOnlyFeed()
        let app = try test.feed(server.source)
        let recorder = await SnapshotRecorder(widget)
        server.items.insert(contentsOf: [Post].posts("new", 2), at: 0)
        await app.refresh()
        let expected = server.items.map(\.id)
        for await snapshot in await widget.snapshots where snapshot.ids == expected { break }
        SecondWriterChecks.everyChangeApplies(await recorder.snapshots(settlingOn: widget), "read-only store")
    }

    @Test func aReadOnlyFeedShowsAWriteOnAnotherConnectionByItself() async throws {
        let server = try await cache()
        let widget = try readOnlyFeed()
        // A write on a connection of its own, as another process's: nobody tells the widget.
        try DatabaseQueue(path: test.path).write { store in
            var feed = try #require(try store.feed(key: "home"))
            _ = try store.removeItem("p3", from: &feed)
        }
        let expected = server.items.map(\.id).filter { $0 != "p3" }
        for await snapshot in await widget.snapshots where snapshot.ids == expected { break }
    }

    @Test func aFileWhoseWritersClosedCleanlyOpensAndFollowsTheNextWriter() async throws {
        let server = try await cache()
        #expect(!FileManager.default.fileExists(atPath: test.path + "-wal"), "the app closed the file cleanly")
        let widget = try readOnlyFeed()
        #expect(await widget.snapshot.ids == server.items.map(\.id))
        try DatabaseQueue(path: test.path).write { store in
            var feed = try #require(try store.feed(key: "home"))
            _ = try store.removeItem("p1", from: &feed)
        }
        let expected = server.items.map(\.id).filter { $0 != "p1" }
        for await snapshot in await widget.snapshots where snapshot.ids == expected { break }
    }
}
