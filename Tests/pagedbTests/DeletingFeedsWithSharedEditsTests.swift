import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// `pagedb delete` dropping pending edits of shared items: the other feeds show the server's copy.
@Suite(.limit(minutes: 3), .plainRunOnly) struct DeletingFeedsWithSharedEditsTests {
    typealias Toot = CommandsOnSharedSearchableFeedsTests.Toot
    typealias Revision = CommandsOnSharedSearchableFeedsTests.Revision

    static func feed(_ key: String, _ items: [Toot], in store: FeedStore, version: Int = 0) throws -> Feed<Toot> {
        try CommandsOnSharedSearchableFeedsTests.feed(key, items, in: store, version: version)
    }

    static func contents(_ key: String, db: String) async throws -> [String] {
        let store = try FeedStore(path: db)
        defer { store.close() }
        return await (try feed(key, [], in: store)).snapshot.rows.compactMap { $0?.content }
    }

    /// A file in `scratch` whose "home" and "profile" both hold the shared item 1 ("otter"),
    /// refreshed, with the store still open.
    static func homeAndProfile(
        in scratch: TemporaryDirectory
    ) async throws -> (db: String, store: FeedStore, home: Feed<Toot>, profile: Feed<Toot>) {
        let (db, store, home, profile) = try await CommandsOnSharedSearchableFeedsTests.refreshedFeeds(
            ("home", [Toot(id: "1", content: "otter")]), ("profile", [Toot(id: "1", content: "otter")]), in: scratch)
        return (db, store, home, profile)
    }

    /// Runs `pagedb delete home --drop-pending-edits`, which must succeed.
    static func deleteHomeDroppingItsEdits(_ db: String) async throws {
        let deleted = try await PagedDBBinary.run(["delete", "home", "--db", db, "--drop-pending-edits"])
        #expect(deleted.status == 0, "\(deleted.stdout)\(deleted.stderr)")
    }

    static func verify(_ db: String) async throws -> String {
        let verify = try await PagedDBBinary.run(["verify", "--db", db])
        return verify.status == 0 ? "ok" : "\(verify.status): \(verify.stdout)\(verify.stderr)"
    }

    /// home queues an update of shared item 1 (beaver), profile shows it. home gets a new cache
    /// version: the edit is detached (still queued), profile still shows it. `pagedb delete home
    /// --drop-pending-edits` drops the detached edit: nothing will ever send it, so profile must
    /// show the server's copy again, as a rejection of the detached edit would leave it.
    @Test func aDroppedDetachedUpdateNoLongerShowsInTheOtherFeed() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, store, home, _) = try await Self.homeAndProfile(in: scratch)
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        _ = try Self.feed("home", [], in: store, version: 2)
        store.close()
        #expect(try await Self.contents("profile", db: db) == ["beaver"], "precondition")
        try await Self.deleteHomeDroppingItsEdits(db)
        let shown = try await Self.contents("profile", db: db)
        #expect(shown == ["otter"], "no edit of item 1 is left anywhere; profile shows \(shown)")
        let reopened = try FeedStore(path: db)
        let found = try reopened.search("beaver", as: Toot.self).map(\.listID)
        #expect(found == [], "search finds \(found)")
        reopened.close()
        #expect(try await Self.verify(db) == "ok")
    }

    /// home queues two updates of shared item 1 (beaver, then seal); delete drops both: profile shows
    /// the server's copy (otter), the base of the first.
    @Test func twoStackedUpdatesDroppedTogether() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, store, home, _) = try await Self.homeAndProfile(in: scratch)
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 2)) { $0.content = "seal" }
        store.close()
        #expect(try await Self.contents("profile", db: db) == ["seal"], "precondition")
        try await Self.deleteHomeDroppingItsEdits(db)
        #expect(try await Self.contents("profile", db: db) == ["otter"])
        #expect(try await Self.verify(db) == "ok")
    }

    /// home queues an update then a removal of shared item 1; profile shows the update. Delete drops
    /// both: profile shows otter.
    @Test func anUpdateThenARemovalDroppedTogether() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, store, home, _) = try await CommandsOnSharedSearchableFeedsTests.refreshedFeeds(
            ("home", [Toot(id: "1", content: "otter"), Toot(id: "2", content: "x")]),
            ("profile", [Toot(id: "1", content: "otter")]), in: scratch)
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        _ = try await home.enqueue("remove", removing: "1", argument: Revision(revision: 2))
        store.close()
        let during = try await Self.contents("profile", db: db)
        try await Self.deleteHomeDroppingItsEdits(db)
        let after = try await Self.contents("profile", db: db)
        #expect(after == ["otter"], "profile showed \(during) before, \(after) after")
        #expect(try await Self.verify(db) == "ok")
    }

    /// profile queues its own update (walrus) first, then home queues one (beaver, newest: every
    /// feed shows it); third holds the item too. Delete home: profile's edit is the one left, on top
    /// in every feed.
    @Test func aThirdFeedsOwnEditStaysOnTop() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, store, home, profile) = try await Self.homeAndProfile(in: scratch)
        await (try Self.feed("third", [Toot(id: "1", content: "otter")], in: store)).refresh()
        try await profile.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "walrus" }
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 2)) { $0.content = "beaver" }
        store.close()
        let during = try await Self.contents("third", db: db)
        try await Self.deleteHomeDroppingItsEdits(db)
        #expect(try await Self.contents("profile", db: db) == ["walrus"])
        #expect(try await Self.contents("third", db: db) == ["walrus"], "third showed \(during) before")
        #expect(try await Self.verify(db) == "ok")
        // profile's edit rejected: otter everywhere.
        let reopened = try FeedStore(path: db)
        let p = try Self.feed("profile", [], in: reopened)
        let t = try Self.feed("third", [], in: reopened)
        await reopened.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        for await status in await reopened.outbox.states where status.count == 0 { break }
        #expect(await p.snapshot.rows.compactMap { $0?.content } == ["otter"])
        #expect(await t.snapshot.rows.compactMap { $0?.content } == ["otter"])
    }

    /// profile open and observed in the app's store while `pagedb delete home --drop-pending-edits`
    /// runs: its list follows to otter.
    @Test func theOtherFeedOpenInAnotherStoreFollows() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, store, home, profile) = try await CommandsOnSharedSearchableFeedsTests.refreshedFeeds(
            ("home", [Toot(id: "1", content: "otter"), Toot(id: "2", content: "two")]),
            ("profile", [Toot(id: "0", content: "zero"), Toot(id: "1", content: "otter")]), in: scratch)
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        let recorder = StreamRecorder(await profile.snapshots)
        let list = try store.searchList("beaver", as: Toot.self)
        let searchRecorder = StreamRecorder(await list.snapshots)
        try await Self.deleteHomeDroppingItsEdits(db)
        let seen = await recorder.snapshots { $0.rows.compactMap { $0?.content } == ["zero", "otter"] }
        #expect(seen.last?.rows.compactMap { $0?.content } == ["zero", "otter"])
        let emptied = await searchRecorder.snapshots { $0.results.isEmpty }
        #expect(!emptied.isEmpty)
        #expect(try await Self.verify(db) == "ok")
        _ = home
    }

    /// `pagedb delete home` without --drop-pending-edits refuses (7) and writes nothing.
    @Test func aRefusedDeleteWritesNothing() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, store, home, _) = try await Self.homeAndProfile(in: scratch)
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        let before = try FileManager.default.contentsOfDirectory(atPath: scratch.path("")).sorted()
        store.close()
        let mainBefore = try Data(contentsOf: URL(fileURLWithPath: db))
        let refused = try await PagedDBBinary.run(["delete", "home", "--db", db])
        #expect(refused.status == 7, "\(refused.stdout)\(refused.stderr)")
        let mainAfter = try Data(contentsOf: URL(fileURLWithPath: db))
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: db + "-wal")))?.count ?? 0
        #expect(mainBefore == mainAfter && wal == 0, "wal \(wal) bytes; files \(before)")
        #expect(try await Self.contents("profile", db: db) == ["beaver"])
        #expect(try await Self.contents("home", db: db) == ["beaver"])
    }

    /// home queues beaver first, then profile queues walrus on top of what it showed (beaver).
    /// Delete home: profile's edit now stands on otter; its rejection shows otter everywhere, never
    /// the dropped beaver.
    @Test func anEditMadeOnTheDroppedEditIsRebasedOntoTheServersCopy() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, store, home, profile) = try await Self.homeAndProfile(in: scratch)
        await (try Self.feed("third", [Toot(id: "1", content: "otter")], in: store)).refresh()
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        try await profile.enqueue("revise", id: "1", argument: Revision(revision: 2)) { $0.content += " walrus" }
        store.close()
        let during = try await Self.contents("third", db: db)
        try await Self.deleteHomeDroppingItsEdits(db)
        let afterDelete = try await Self.contents("third", db: db)
        #expect(try await Self.verify(db) == "ok")
        let reopened = try FeedStore(path: db)
        let p = try Self.feed("profile", [], in: reopened)
        let t = try Self.feed("third", [], in: reopened)
        await reopened.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        for await status in await reopened.outbox.states where status.count == 0 { break }
        let shownP = await p.snapshot.rows.compactMap { $0?.content }
        let shownT = await t.snapshot.rows.compactMap { $0?.content }
        #expect(
            shownP == ["otter"] && shownT == ["otter"],
            "third \(during) -> \(afterDelete); after rejection \(shownP) \(shownT)")
    }

    /// "fav" queues an insert of item 1 with its own copy (seal) while profile holds the server's
    /// (otter). Delete drops the insert: profile must show otter.
    @Test func aLoneInsertOfAnItemAnotherFeedHolds() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, store, fav, _) = try await CommandsOnSharedSearchableFeedsTests.refreshedFeeds(
            ("fav", [Toot(id: "9", content: "heron")]), ("profile", [Toot(id: "1", content: "otter")]), in: scratch)
        _ = try await fav.enqueue(
            "fave", inserting: Toot(id: "1", content: "seal"), at: 0, argument: Revision(revision: 0))
        store.close()
        let during = try await Self.contents("profile", db: db)
        let deleted = try await PagedDBBinary.run(["delete", "fav", "--db", db, "--drop-pending-edits"])
        #expect(deleted.status == 0, "\(deleted.stdout)\(deleted.stderr)")
        let after = try await Self.contents("profile", db: db)
        #expect(after == ["otter"], "profile showed \(during) before, \(after) after")
    }
}
