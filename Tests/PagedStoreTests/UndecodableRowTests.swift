import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// What the file holds that the app's model cannot read (the app's next version changed the model,
/// or a row was edited by hand): a row that does not decode costs that row only, every change still
/// applies, and the feed always opens; a new ``FeedPolicy/cacheVersion`` opens it as a first launch.
@Suite(.limit()) struct UndecodableRowTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// The app's next model: a field the cached rows lack, that is not optional.
    struct PostWithLikes: FeedItem, Codable, Equatable {
        let id: String
        var revision: Int
        var likes: Int
    }

    /// The same list as `server`, as the next version of the app fetches it.
    func nextVersionSource(_ server: ModelServer) -> ScriptedSource<PostWithLikes> {
        ScriptedSource { request in
            let page = server.page(for: request)
            return Page(
                items: page.items.map { PostWithLikes(id: $0.id, revision: $0.revision, likes: 1) },
                olderCursor: page.olderCursor, newerCursor: page.newerCursor)
        }
    }

    /// Replaces the payload of `id` with text that is not an item, as sqlite3 would.
    func damage(_ id: String) throws {
        try DatabaseQueue(path: test.path).write { store in
            try store.connection.execute("UPDATE item SET payload = '{\"broken' WHERE item_id = '\(id)'")
        }
    }

    @Test func aModelWithANewFieldOpensTheFeedAndLoadsItAgain() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        try await test.feed(server.source).refresh()
        let feed = try test.store().feed(
            "home", source: nextVersionSource(server), policy: FeedPolicy(refreshOnOpen: .never))
        let opened = await feed.snapshot
        #expect(opened.rows.count == 0, "no row of the old model is shown")
        #expect(opened.content == .initialLoading, "the feed loads again, as on a first launch")
        let removed = await feed.events.first(.undecodableRowsRemoved)
        #expect(removed?.itemIDs == (0..<10).map { "p\($0)" })
        #expect(removed?.error?.kind == .codec)
        #expect(try test.recordOnDisk()?.oldestCursor == nil, "its cursors are reset")
        await feed.refresh()
        #expect(await feed.snapshot.rows.loadedItems.map(\.likes) == Array(repeating: 1, count: 10))
    }

    @Test func aFirstPageTheModelRefusesEntirelyIsFollowedByTheNextPage() async throws {
        let server = ModelServer(.posts("p", 15), pageSize: 10)
        let refused = RefusedIDs()
        for row in 0..<10 { refused.insert("p\(row)") }
        let feed = try test.feed(server.source, codec: refused.codec)
        await feed.refresh()
        await feed.waitUntilIdle()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == (10..<15).map { "p\($0)" }, "the rows below the refused page are reached")
        #expect(snapshot.nextPage == .endReached)
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    @Test func aRowEditedByHandCostsThatRowOnly() async throws {
        let server = ModelServer(.posts("p", 1_000), pageSize: 100)
        let writer = try test.feed(server.source)
        await writer.refresh()
        while await writer.snapshot.nextPage == .idle { await writer.loadNextPage() }
        try damage("p500")

        let feed = try test.feed(server.source)
        let recorder = await SnapshotRecorder(feed)
        let events = await feed.events
        for row in stride(from: 0, to: 1_000, by: 20) where row < (await feed.snapshot.rows.count) {
            await feed.rowDidAppear(row)
        }
        await feed.rowDidAppear(await feed.snapshot.rows.count - 1)
        #expect(await feed.snapshot.rows.last??.id == "p999", "the rows below it load")
        await feed.rowDidAppear(500)
        let snapshot = await feed.snapshot
        #expect(snapshot.rows.count == 999)
        #expect(snapshot.rows.id(at: 499) == "p499" && snapshot.rows.id(at: 500) == "p501", "no blank neighbour")
        let removed = await events.first(.undecodableRowsRemoved)
        #expect(removed?.itemIDs == ["p500"])
        let snapshots = await recorder.snapshots(settlingOn: feed)
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) where next.change != .none {
            let old = previous.rows.indices.map { previous.rows.id(at: $0) ?? "row \($0)" }
            let new = next.rows.indices.map { next.rows.id(at: $0) ?? "row \($0)" }
            #expect(old.count - next.change.deletedRows.count + next.change.insertedRows.count == new.count)
        }
        #expect(try test.idsOnDisk().count == 999, "the row is gone from the cache")
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    @Test func aChangeThatReadsAnUndecodableRowStillApplies() async throws {
        let server = ModelServer(.posts("p", 41), pageSize: 50)
        let feed = try test.feed(server.source)
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        try damage("p20")  // another writer, or a hand edit, while the feed is open
        try await feed.remove(id: "p3")  // re-reads the window
        let ids = await feed.snapshot.ids
        #expect(ids == (0..<41).filter { $0 != 3 && $0 != 20 }.map { "p\($0)" })
        try await ReferenceModelTests.check(recorder, feed, test, "a window read meets a damaged row")
        server.items[7].revision = 1
        await feed.refresh()  // the server lists p20 again: written anew
        #expect(await feed.snapshot.ids.contains("p20"))
        try await ReferenceModelTests.check(recorder, feed, test, "the server lists the row again")

        // A refresh whose merge rewrites the head (p1 deleted on the server) reads a damaged row the
        // page does not list.
        try await feed.insert(Post(id: "mine"), at: 39)
        try damage("mine")
        server.items.removeAll { $0.id == "p1" }
        await feed.refresh()
        let idsAfter = await feed.snapshot.ids
        #expect(!idsAfter.contains("p1") && !idsAfter.contains("mine"))
        try await ReferenceModelTests.check(recorder, feed, test, "a refresh meets a damaged row")
    }

    @Test func aNewCacheVersionOpensTheFeedAsAFirstLaunch() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        try await test.feed(server.source).refresh()
        try DatabaseQueue(path: test.path).write { store in
            let feed = try #require(try store.feed(key: "home"))
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: "p1", kind: .update, base: nil,
                    edited: try JSONEncoder().encode(Post(id: "p1", revision: 9)),
                    createdAt: Date()),
                in: feed)
        }
        let policy = FeedPolicy(refreshOnOpen: .always, cacheVersion: 2)
        let feed = try test.store().feed("home", source: nextVersionSource(server), policy: policy)
        #expect(await feed.snapshot.rows.count == 0)
        #expect(await feed.snapshot.content == .initialLoading)
        let record = try #require(try test.recordOnDisk())
        #expect(record.oldestCursor == nil && record.newestCursor == nil && !record.loaded)
        #expect(
            try DatabaseQueue(path: test.path).read { try $0.connection.int64("SELECT count(*) FROM pending_edit") }
                == 0)
        await feed.start()
        await feed.waitUntilIdle()
        #expect(await feed.snapshot.rows.count == 10, "the first page, as on a first launch")

        let writes = try FileWrites(test.path)
        let reopened = try test.store().feed("home", source: nextVersionSource(server), policy: policy)
        #expect(await reopened.snapshot.rows.count == 10, "the same version keeps its rows")
        #expect(try !writes.feedsWrittenSinceLastAsked(), "and opens without writing its row")
    }

    /// Three pages loaded to the end, then the next model refuses every cached row (the server's
    /// items now decode: it changed them). Refresh and scroll: every item comes back.
    @Test func aFeedScrolledToItsEndWhoseRowsAllFailLoadsEveryPageAgain() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let writer = try test.feed(server.source)
        await writer.refresh()
        while await writer.snapshot.nextPage == .idle { await writer.loadNextPage() }
        #expect(await writer.snapshot.nextPage == .endReached)
        #expect(await writer.snapshot.rows.count == 30)
        // The next version refuses the rows of the old model: revision 0.
        let codec = ItemCodec<Post>(storesText: true, encode: ItemCodec<Post>.json.encode) { data in
            let item = try ItemCodec<Post>.json.decode(data)
            if item.revision == 0 { throw RefusedIDs.Refused() }
            return item
        }
        for index in server.items.indices { server.items[index].revision = 1 }
        let feed = try test.feed(server.source, codec: codec)
        let opened = await feed.snapshot
        #expect(opened.rows.count == 0)
        #expect(opened.content == .initialLoading)
        #expect(opened.nextPage != .endReached, "the rows are gone: the end is not reached")
        await feed.refresh()
        await feed.waitUntilIdle()
        try await scrollToTheEnd(feed, "after the model change")
        #expect(await feed.snapshot.ids == (0..<30).map { "p\($0)" }, "every item back, none skipped")
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    /// A feed whose rows all failed keeps its cursors: a next page asked before any refresh (the
    /// bottom of an empty list appeared, refreshOnOpen .never) shows rows from the middle of the
    /// server's list as if they were its top.
    @Test func aNextPageBeforeTheRefreshOfAFeedWhoseRowsAllFailed() async throws {
        let server = ModelServer(.posts("p", 50), pageSize: 10)
        let writer = try test.feed(server.source)
        await writer.refresh()
        await writer.loadNextPage()
        await writer.loadNextPage()
        #expect(await writer.snapshot.rows.count == 30)
        let refused = RefusedIDs()
        for row in 0..<30 { refused.insert("p\(row)") }
        let feed = try test.feed(server.source, codec: refused.codec)
        #expect(await feed.snapshot.content == .initialLoading)
        await feed.loadNextPage()
        await feed.waitUntilIdle()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids.isEmpty || snapshot.ids.first == "p0", "no middle slice shown as the top: \(snapshot.ids)")
    }
}
