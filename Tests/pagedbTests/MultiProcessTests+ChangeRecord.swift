import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStoreFixtures

/// A list in this process that another process wrote many times while it did not look (an app
/// suspended while its extension wrote): the file's change record tells it what changed.
extension MultiProcessTests {
    /// The item the crash writer writes.
    struct Revised: FeedItem, Codable, Equatable {
        let id: String
        var revision: Int
    }

    /// The crash writer's first feed, opened as the crash writer opens it, never fetching.
    static func crashWritersFeed(in store: FeedStore) throws -> Feed<Revised> {
        try store.feed(
            "feed0", source: ScriptedSource<Revised> { _ in throw CancellationError() },
            policy: FeedPolicy(refreshOnOpen: .never, windowSize: 2000, firstScreenRows: 2000, maxRows: 400))
    }

    /// Runs the crash writer on `db` for `operations` operations (of its seed 1).
    static func runCrashWriter(_ db: String, operations: Int, _ arguments: [String] = []) async throws {
        let run = try await HarnessBinary.run(
            ["crash-writer", "--db", db, "--operations", "\(operations)"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
    }

    /// A new file whose first feed holds the crash writer's newest page, so that the writer's
    /// refreshes land on top of it (not in its place).
    static func fileWithTheCrashWritersNewestPage(in scratch: TemporaryDirectory) async throws -> String {
        let db = scratch.path("shared.sqlite")
        let items = (180..<200).reversed().map { #"{"id":"f0s1-\#($0)","revision":0}"# }
        let page = try scratch.file(
            "first.json", #"{"items":[\#(items.joined(separator: ","))],"next_cursor":"f0s1-180"}"#)
        let apply = try await PagedDBBinary.run(["apply", "feed0", "--db", db, "--page", page, "--as", "refresh"])
        #expect(apply.status == 0, "\(apply.stderr)")
        return db
    }

    /// Opens the crash writer's first feed in a store of this process, lets the crash writer make
    /// `operations` operations in another process while nobody observes the list (nothing tells it
    /// of them), then has the list read: its snapshots before and after, and its events.
    static func readAfterTheCrashWriter(
        _ db: String, operations: Int, _ arguments: [String] = []
    ) async throws -> (
        store: FeedStore, feed: Feed<Revised>, events: EventRecorder, before: FeedSnapshot<Revised>,
        after: FeedSnapshot<Revised>
    ) {
        let store = try FeedStore(path: db)
        let feed = try Self.crashWritersFeed(in: store)
        let events = await EventRecorder(feed)
        let before = await feed.snapshot
        try await Self.runCrashWriter(db, operations: operations, arguments)
        _ = try await feed.identifiers()
        return (store, feed, events, before, await feed.snapshot)
    }

    /// What `feed` shows, row by row, and what the file holds.
    static func shownAndFile(_ feed: Feed<Revised>, _ db: String) async throws -> (shown: [Revised], file: [Revised]) {
        let shown = await feed.snapshot.rows.loadedItems
        let file = try DatabaseQueue(path: db).read { store in
            try store.window(of: try #require(try store.feed(key: "feed0")), from: .top, limit: 2000)
        }
        return (shown, try file.map { try ItemCodec<Revised>.json.decode($0.payload) })
    }

    @Test func aListThatMissedManyWritesOfAnotherProcessTakesThemAsOneExactChange() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await Self.fileWithTheCrashWritersNewestPage(in: scratch)
        let (store, feed, events, before, after) = try await Self.readAfterTheCrashWriter(db, operations: 60)
        #expect(after.sequence == before.sequence + 1, "every write in one change")
        #expect(!after.change.isFullReload)
        let old = before.rows.loadedItems.map(\.id)
        let new = after.rows.loadedItems.map(\.id)
        #expect(try BatchUpdate.apply(after.change, to: old, new: new) == new)
        let (shown, file) = try await Self.shownAndFile(feed, db)
        #expect(shown == file)
        let kinds = await events.events(settlingOn: feed).map(\.kind)
        #expect(kinds.contains(.followedOtherWriter) && !kinds.contains(.reloadedFromFile))
        store.close()
    }

    @Test func aListThatMissedMoreWritesThanTheRecordKeepsReloadsOnceAndSaysSo() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await Self.fileWithTheCrashWritersNewestPage(in: scratch)
        // A writer that keeps only its newest write: the way from the list's row is forgotten.
        let (store, feed, events, before, after) = try await Self.readAfterTheCrashWriter(
            db, operations: 200, ["--change-record-limit", "1"])
        #expect(after.sequence == before.sequence + 1, "one full reload")
        #expect(after.change.isFullReload)
        let (shown, file) = try await Self.shownAndFile(feed, db)
        #expect(shown == file)
        let reported = await events.events(settlingOn: feed)
        #expect(reported.map(\.kind).contains(.reloadedFromFile))
        #expect(!reported.map(\.kind).contains(.followedOtherWriter))
        let reasons = reported.filter { $0.kind == .reloadedFromFile }.compactMap(\.reason)
        #expect(reasons.count == 1 && reasons[0].hasPrefix("the change record does not hold every write"), "\(reasons)")
        let recordSize = try DatabaseQueue(path: db).read { store in
            try store.connection.integer("SELECT count(*) FROM feed_change") ?? -1
        }
        #expect(recordSize <= 64, "the record keeps its limit, forgotten every 64 writes")
        store.close()
    }

    @Test func aListWhoseFeedAnotherProcessDeletesDeletesEveryRowExactly() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await Self.fileWithTheCrashWritersNewestPage(in: scratch)
        let store = try FeedStore(path: db)
        let feed = try Self.crashWritersFeed(in: store)
        let events = await EventRecorder(feed)
        let before = await feed.snapshot
        #expect(before.rows.count == 20)
        let deleted = try await PagedDBBinary.run(["delete", "feed0", "--db", db])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        _ = try await feed.identifiers()
        let after = await feed.snapshot
        #expect(after.rows.count == 0)
        #expect(!after.change.isFullReload)
        #expect(try BatchUpdate.apply(after.change, to: before.rows.loadedItems.map(\.id), new: [String]()) == [])
        let kinds = await events.events(settlingOn: feed).map(\.kind)
        #expect(kinds.contains(.followedOtherWriter) && !kinds.contains(.reloadedFromFile))
        store.close()
    }
}
