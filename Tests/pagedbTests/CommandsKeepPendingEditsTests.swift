import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// `pagedb` commands on a file whose feeds hold the user's pending edits: a trim keeps their rows;
/// `sync` and `apply` write with the app's recorded policy (its cache version clears nothing) and
/// show the edits on the server's copies, as the app's own refresh does; `delete` keeps the feed
/// unless told to drop them, then says what it dropped.
@Suite(.limit(minutes: 3)) struct CommandsKeepPendingEditsTests {
    struct Titled: FeedItem, Codable, Equatable {
        let id: String
        var title: String
    }

    struct Retitle: Codable, Sendable {
        let title: String
    }

    /// Two pages of five, chained by cursor so that a trim may cut exactly between them.
    static let twoPages = ScriptedSource<Titled> { request in
        switch request {
        case .first: Page(items: (0..<5).map { Titled(id: "p\($0)", title: "server") }, olderCursor: "c1")
        case .olderThan(cursor: "c1"):
            Page(items: (5..<10).map { Titled(id: "p\($0)", title: "server") }, olderCursor: nil)
        default: Page(items: [], olderCursor: nil)
        }
    }

    let scratch: TemporaryDirectory
    let db: String

    init() throws {
        scratch = try TemporaryDirectory(prefix: "pending-edits")
        db = scratch.path("cache.sqlite")
    }

    /// The app loads `pages` pages of its feed, queues the user's new title of `id`, and quits.
    func queueARetitle(
        of id: String, pages: Int = 1, source: ScriptedSource<Titled> = twoPages,
        policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never)
    ) async throws {
        let store = try FeedStore(path: db)
        let feed = try store.feed("home", source: source, policy: policy)
        await feed.refresh()
        for _ in 1..<max(pages, 1) { await feed.loadNextPage() }
        _ = try await feed.enqueue("retitle", id: id, argument: Retitle(title: "mine")) { $0.title = "mine" }
        #expect(await feed.snapshot.rows.loadedItems.first { $0.id == id }?.title == "mine")
        store.close()
    }

    /// What the app shows after a relaunch, and which items have edits still pending on their rows.
    func relaunched(
        source: ScriptedSource<Titled> = twoPages, policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never)
    ) async throws -> (rows: [Titled], pending: [String]) {
        let app = try FeedStore(path: db)
        defer { app.close() }
        let feed = try app.feed("home", source: source, policy: policy)
        return (await feed.snapshot.rows.loadedItems, try await feed.pendingEdits().map(\.itemID))
    }

    @Test func aTrimKeepsTheRowAQueuedEditNames() async throws {
        try await queueARetitle(of: "p8", pages: 2)

        let trim = try await PagedDBBinary.run(["trim", "home", "--db", db, "--max-rows", "5"])
        #expect(trim.status == 0, "\(trim.stderr)")
        #expect(
            trim.stdout
                == "Removed 0 rows from home; kept 10 rows: a pending edit shows on row 8 (pagedb show lists it).\n")
        #expect(try StoredRows.byFeed(in: db)["home"]?.count == 10, "the edit's row is on the last page")

        let app = try await relaunched()
        #expect(app.rows.contains(Titled(id: "p8", title: "mine")), "\(app.rows.map(\.id))")
        #expect(app.pending == ["p8"])
    }

    /// A feed the app records with cache version 2: a sync with any other version would clear it as
    /// a model change nobody asked for, its queued edit then shown on no row.
    @Test func aSyncWritesWithTheAppsRecordedCacheVersionAndKeepsItsQueuedEdit() async throws {
        let server = try LoopbackServer()
        let policy = FeedPolicy(refreshOnOpen: .never, cacheVersion: 2)
        // The same items as the server's first page (i0…), so that the sync's refresh overlaps.
        let source = ScriptedSource<Titled> { _ in
            Page(items: (0..<5).map { Titled(id: "i\($0)", title: "Item \($0)") }, olderCursor: nil)
        }
        try await queueARetitle(of: "i1", source: source, policy: policy)

        let sync = try await PagedDBBinary.run([
            "sync", "home", "--db", db, "--url", server.url("body").absoluteString, "--items-path", "data.items",
            "--next-path", "meta.next_cursor",
        ])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("Refreshed home"), "the app's rows were there to refresh: \(sync.stdout)")

        let app = try await relaunched(source: source, policy: policy)
        #expect(app.rows.first { $0.id == "i1" }?.title == "mine", "\(app.rows.map { "\($0.id)=\($0.title)" })")
        #expect(app.pending == ["i1"], "still pending, on its row")
    }

    /// `apply` reads the app's rows as JSON objects whose id key it does not know: the app's edit
    /// on a row it writes over goes again on the server's copy, as the app's own refresh does.
    @Test func anApplyOverAQueuedEditShowsTheEditOnTheServersCopy() async throws {
        try await queueARetitle(of: "p1")
        let page = try scratch.file(
            "page.json",
            #"{"items":[{"id":"n0","title":"new"},{"id":"p0","title":"server"},{"id":"p1","title":"server"}]}"#)

        let applied = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", page, "--as", "refresh"])
        #expect(applied.status == 0, "\(applied.stderr)")

        let app = try await relaunched()
        #expect(app.rows.first?.id == "n0")
        #expect(app.rows.first { $0.id == "p1" }?.title == "mine", "\(app.rows.map { "\($0.id)=\($0.title)" })")
        #expect(app.pending == ["p1"], "still pending, on its row")
    }

    @Test func aDeleteKeepsAFeedWithAnEditBeingSavedUnlessToldAndSaysWhatItDropped() async throws {
        let store = try FeedStore(path: db)
        let feed = try store.feed("home", source: Self.twoPages, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        let found = try await feed.edit(id: "p1") {
            $0.title = "mine"
        } commit: { [db] _ async throws in
            // While the app's server call runs, the edit is in the file.
            let kept = try await PagedDBBinary.run(["delete", "home", "--db", db])
            #expect(kept.status == 7, "\(kept.stdout)")
            #expect(kept.stderr.contains("holds 1 edit an app is saving"), "\(kept.stderr)")
            #expect(try StoredRows.byFeed(in: db)["home"]?.count == 5, "nothing deleted")

            let deleted = try await PagedDBBinary.run(["delete", "home", "--db", db, "--drop-pending-edits"])
            #expect(deleted.status == 0, "\(deleted.stderr)")
            #expect(deleted.stdout.contains("Deleted home (5 rows; 1 edit an app was saving dropped)."))
        }
        #expect(found)
        store.close()
    }

    /// A policy recorded by a newer app (a gap policy this build does not know), and one damaged by
    /// hand: neither decodes here. The row keeps the app's text, so that the app's next open finds
    /// its own cache version, not a default one that would clear the feed as a model change.
    @Test(arguments: [
        #"UPDATE feed SET policy = replace(policy, '"gapPolicy":"replace"', '"gapPolicy":"fillGaps"')"#,
        #"UPDATE feed SET policy = substr(policy, 1, length(policy) - 1)"#,
    ])
    func anApplyOverAPolicyItCannotReadKeepsTheAppsCacheVersion(_ edit: String) async throws {
        let policy = FeedPolicy(refreshOnOpen: .never, cacheVersion: 2)
        try await queueARetitle(of: "p1", policy: policy)
        try ForeignWriter.execute(edit, on: db)
        let page = try scratch.file(
            "page.json",
            #"{"items":[{"id":"n0","title":"new"},{"id":"p0","title":"server"},{"id":"p1","title":"server"}]}"#)

        let applied = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", page, "--as", "refresh"])
        #expect(applied.status == 0, "\(applied.stderr)")

        let app = try await relaunched(policy: policy)
        #expect(app.rows.map(\.id) == ["n0", "p0", "p1", "p2", "p3", "p4"], "the app's rows are still there")
        #expect(app.rows.first { $0.id == "p1" }?.title == "mine")
        #expect(app.pending == ["p1"], "still pending, on its row")
    }

    /// An edit whose payload is another item's (a file edited by hand, a faulty writer) would show
    /// that item on a second row: `apply` reads the payload's id under its `--id-key` and leaves the
    /// edit out, as the app does.
    @Test func anApplyDoesNotWriteAnotherItemsPayloadOnTheEditedRow() async throws {
        try await queueARetitle(of: "p1")
        try ForeignWriter.execute(
            #"UPDATE pending_edit SET edited = '{"id":"p2","title":"mine"}' WHERE item_id = 'p1'"#, on: db)
        let page = try scratch.file(
            "page.json",
            #"{"items":[{"id":"n0","title":"new"},{"id":"p0","title":"server"},{"id":"p1","title":"server"}]}"#)

        let applied = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", page, "--as", "refresh"])
        #expect(applied.status == 0, "\(applied.stderr)")

        let ids = try await relaunched().rows.map(\.id)
        #expect(ids == ["n0", "p0", "p1", "p2", "p3", "p4"], "no item shows on two rows")
    }

    /// A queued edit whose rows left under it (a new cache version cleared them) shows on no row,
    /// even its item's that the server's pages bring back: a trim keeps nothing for it.
    @Test func aTrimCutsTheRowOfADetachedEdit() async throws {
        try await queueARetitle(of: "p8", pages: 2)
        let store = try FeedStore(path: db)
        let feed = try store.feed(
            "home", source: Self.twoPages, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 1))
        await feed.refresh()
        await feed.loadNextPage()
        try #require(await feed.snapshot.rows.loadedItems.first { $0.id == "p8" }?.title == "server")
        try #require(try await feed.pendingEdits().isEmpty, "detached")
        store.close()

        let trim = try await PagedDBBinary.run(["trim", "home", "--db", db, "--max-rows", "5"])
        #expect(trim.status == 0, "\(trim.stderr)")
        #expect(trim.stdout == "Removed 5 rows from home.\n")
        #expect(try StoredRows.byFeed(in: db)["home"]?.count == 5)
    }
}
