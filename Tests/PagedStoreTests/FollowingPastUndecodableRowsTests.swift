import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// An observed list whose window meets a row its codec cannot decode still follows other writers:
/// a read-only store can never remove the row, and a writable list removes it with a write of its
/// own before it follows, so no list waits for the app's next read or write to show another writer's.
/// A list nobody observes leaves the follow, and the row, to its own next read or write.
@Suite(.limit()) struct FollowingPastUndecodableRowsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// Another process's write, as sqlite3 would make it: a new row "mine" on top, and the bottom
    /// row no longer decodes.
    func insertMineAndBreakTheBottomRow() throws {
        try DatabaseQueue(path: test.path).write { store in
            var feed = try #require(try store.feed(key: "home"))
            let item = EncodedItem(itemID: "mine", payload: try ItemCodec<Post>.json.encode(Post(id: "mine")))
            try store.insertItem(item, atRow: 0, local: true, in: &feed)
            try store.connection.execute("UPDATE item SET payload = '{\"broken' WHERE item_id = 'p4'")
        }
    }

    @Test func aReadOnlyListFollowsAWriteWhileARowItCannotDecodeStaysInTheFile() async throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let widget = try FeedStore(path: test.path, readOnly: true).feed(
            "home", source: server.source, policy: FeedPolicy(refreshOnOpen: .never))
        let recorder = await SnapshotRecorder(widget)
        try insertMineAndBreakTheBottomRow()
        for await snapshot in await widget.snapshots where snapshot.rows[0]?.id == "mine" { break }
        let snapshots = await recorder.snapshots(settlingOn: widget)
        #expect(await widget.snapshot.rows.count == 6, "the file's rows, the undecodable one included")
        SecondWriterChecks.everyChangeApplies(snapshots, "read-only past an undecodable row")
    }

    @Test func aWritableObservedListFollowsAWriteWhileARowItCannotDecodeStaysInTheFile() async throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let recorder = await SnapshotRecorder(app)
        let events = await EventRecorder(app)
        try insertMineAndBreakTheBottomRow()
        for await snapshot in await app.snapshots where snapshot.rows[0]?.id == "mine" { break }
        SecondWriterChecks.everyChangeApplies(await recorder.snapshots(settlingOn: app), "past an undecodable row")
        let expected = ["mine"] + (0..<4).map { "p\($0)" }
        #expect(await app.snapshot.ids == expected, "no row it cannot show is counted")
        #expect(try test.idsOnDisk() == expected, "the list removed the row with a write of its own")
        let removals = await events.events(settlingOn: app).filter { $0.kind == .undecodableRowsRemoved }
        #expect(removals.map(\.itemIDs) == [["p4"]], "the removal is reported once")
    }

    @Test func aWritableListNobodyObservesRemovesTheRowWithItsOwnNextWrite() async throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let before = await app.snapshot
        let events = await EventRecorder(app)
        try insertMineAndBreakTheBottomRow()
        // A nudge, as another writer of this process gives every list of the feed: nobody observes
        // this one, so it follows by reading only, and the row waits in the file.
        try await app.syncWithFile(mayWrite: false)
        #expect(await app.snapshot == before, "the list waits for its own next read or write")
        #expect(try test.idsOnDisk().contains("p4"), "a list nobody observes writes nothing on a nudge")
        try await app.insert(Post(id: "local"), at: 0)
        let expected = ["local", "mine"] + (0..<4).map { "p\($0)" }
        #expect(await app.snapshot.ids == expected)
        #expect(try test.idsOnDisk() == expected, "the list's own write removed the row")
        let removals = await events.events(settlingOn: app).filter { $0.kind == .undecodableRowsRemoved }
        #expect(removals.map(\.itemIDs) == [["p4"]], "the removal is reported once")
    }
}
