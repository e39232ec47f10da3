import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Every open list follows every write of its feed in this process at once, with the exact change:
/// a second screen on the same feed, or a second store on the same file (an app and its extension
/// in one process), never waits for its own next read and never gets a full reload for a write it
/// could name.
@Suite(.limit()) struct LiveFollowingTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// The first snapshot of `feed`'s after the current one whose ids are `ids`, waiting on its
    /// stream: the follow happens when the other feed's write is told, not when this test looks.
    func firstSnapshot(of feed: Feed<Post>, showing ids: [String]) async -> [FeedSnapshot<Post>] {
        var seen: [FeedSnapshot<Post>] = []
        for await snapshot in await feed.snapshots {
            seen.append(snapshot)
            if snapshot.ids == ids { break }
        }
        return seen
    }

    /// Waits on `follower`'s stream until it shows what `writer` shows, content included.
    func follows(_ follower: Feed<Post>, _ writer: Feed<Post>) async {
        let shown = await writer.snapshot
        let expected = shown.rows.loadedRange.map { shown.rows[$0] }
        for await snapshot in await follower.snapshots
        where snapshot.rows.count == shown.rows.count
            && snapshot.rows.loadedRange.map({ snapshot.rows[$0] }) == expected
        {
            return
        }
    }

    @Test func aSecondScreenOnTheSameFeedFollowsARefreshWithItsExactInsertions() async throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let store = try test.store()
        let first = try test.feed(server.source, store: store)
        await first.refresh()
        let second = try test.feed(server.source, store: store)
        let recorder = await SnapshotRecorder(second)
        server.items.insert(contentsOf: [Post].posts("new", 2), at: 0)
        await first.refresh()
        let expected = (.posts("new", 2) + .posts("p", 5)).map(\.id)
        let seen = await firstSnapshot(of: second, showing: expected)
        #expect(seen.last?.change.insertedRows == [IndexPath(indexes: [0, 0]), IndexPath(indexes: [0, 1])])
        let snapshots = await recorder.snapshots(settlingOn: second)
        #expect(!snapshots.contains { $0.change.isFullReload })
        SecondWriterChecks.everyChangeApplies(snapshots, "second screen")
    }

    @Test func aSecondStoreOnTheSameFileFollowsEveryKindOfWriteExactly() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let widget = try test.feed(server.source)  // a store of its own, on the same file
        let recorder = await SnapshotRecorder(widget)
        // Each write is followed before the next: a list that falls behind takes a full reload.
        await app.loadNextPage()
        await follows(widget, app)
        try await app.update(Post(id: "p3", revision: 4))
        await follows(widget, app)
        try await app.remove(id: "p5")
        await follows(widget, app)
        try await app.insert(Post(id: "mine"), at: 1)
        await follows(widget, app)
        try await app.trim(maxRows: 10)
        await follows(widget, app)
        let shown = await widget.snapshot
        let updated = try #require(shown.ids.firstIndex(of: "p3"))
        #expect(shown.rows[updated]?.revision == 4, "the update's content, not only its row")
        let snapshots = await recorder.snapshots(settlingOn: widget)
        #expect(!snapshots.contains { $0.change.isFullReload }, "every write was named exactly")
        SecondWriterChecks.everyChangeApplies(snapshots, "second store")
        try SecondWriterChecks.rowsEqualTheFile(await widget.snapshot, test, "second store")
    }

    @Test func twoFeedsWritingInTurnBothEndWithTheFilesRows() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let store = try test.store()
        let app = try test.feed(server.source, store: store)
        await app.refresh()
        let behind = try test.feed(server.source, store: store)
        await behind.refresh()  // and app follows; now both write in turn
        await app.loadNextPage()
        await behind.loadNextPage()
        // The file's rows, not app's: app may not yet have followed behind's page when asked.
        let expected = try test.postsOnDisk().map(\.id)
        _ = await firstSnapshot(of: app, showing: expected)
        _ = await firstSnapshot(of: behind, showing: expected)
        try SecondWriterChecks.rowsEqualTheFile(await behind.snapshot, test, "behind")
        try SecondWriterChecks.rowsEqualTheFile(await app.snapshot, test, "app")
    }

    @Test func aWriteNobodyToldBeforeAToldOneMakesTheFollowerTakeTheFileWhole() async throws {
        let server = ModelServer(.posts("p", 10), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let widget = try test.feed(server.source)
        let recorder = await SnapshotRecorder(widget)
        // Another process's write, which no open feed here is told of: p3's content changes.
        try DatabaseQueue(path: test.path).write { store in
            var feed = try #require(try store.feed(key: "home"))
            let item = try ItemCodec<Post>.json.encode(Post(id: "p3", revision: 9))
            _ = try store.updateItem(EncodedItem(itemID: "p3", payload: item), in: &feed)
        }
        try await app.remove(id: "p5")  // told: its change does not know of p3's
        await follows(widget, app)
        let snapshots = await recorder.snapshots(settlingOn: widget)
        SecondWriterChecks.everyChangeApplies(snapshots, "after a write nobody told")
        for (previous, next) in zip(snapshots, snapshots.dropFirst())
        where previous.rows[3]?.id == "p3" && previous.rows[3] != next.rows[3] {
            #expect(next.change.isFullReload || next.change.reconfiguredIDs.contains("p3"), "p3 changed unnamed")
        }
        #expect(await widget.snapshot.rows[3]?.revision == 9)
    }

    @Test func anObservedListNoticesAWriteNobodyToldItWithoutBeingAsked() async throws {
        let server = ModelServer(.posts("p", 10), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        // A write on a connection of its own, as another process's: no open feed is told of it.
        try DatabaseQueue(path: test.path).write { store in
            var feed = try #require(try store.feed(key: "home"))
            _ = try store.removeItem("p3", from: &feed)
        }
        // The list is observed and nothing else happens: it looks at the file by itself.
        let seen = await firstSnapshot(of: app, showing: server.items.map(\.id).filter { $0 != "p3" })
        #expect(seen.count > 1, "it showed the other writer's rows once it looked")
    }

    @Test func followingDoesNotKeepAFeedAlive() throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let store = try test.store()
        var second: Feed<Post>? = try test.feed(server.source, store: store)
        weak let released = second
        second = nil
        #expect(released == nil, "the follow task holds the feed only while it follows a write")
    }
}
