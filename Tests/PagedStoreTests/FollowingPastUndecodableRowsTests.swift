import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// An observed list whose window meets a row its codec cannot decode still follows other writers:
/// following never writes, so the row stays in the file and the window stops above it; a read-only
/// store never removes it, and a writable feed's own next write does.
@Suite(.timeLimit(.minutes(1))) struct FollowingPastUndecodableRowsTests {
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

    /// A writable feed, observed, once it followed ``insertMineAndBreakTheBottomRow()`` by itself,
    /// with the recorder of its snapshots from before the write.
    func writableListFollowingPastABrokenRow() async throws -> (Feed<Post>, SnapshotRecorder<Post>) {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let recorder = await SnapshotRecorder(app)
        try insertMineAndBreakTheBottomRow()
        for await snapshot in await app.snapshots where snapshot.rows[0]?.id == "mine" { break }
        return (app, recorder)
    }

    @Test func aWritableObservedListFollowsAWriteWhileARowItCannotDecodeStaysInTheFile() async throws {
        let (app, recorder) = try await writableListFollowingPastABrokenRow()
        SecondWriterChecks.everyChangeApplies(await recorder.snapshots(settlingOn: app), "past an undecodable row")
        #expect(try test.idsOnDisk().contains("p4"), "following never writes: the row stays in the file")
    }

    @Test func theListsOwnNextWriteRemovesTheRowItFollowedPast() async throws {
        let (app, recorder) = try await writableListFollowingPastABrokenRow()
        try await app.insert(Post(id: "local"), at: 0)
        let expected = ["local", "mine"] + (0..<4).map { "p\($0)" }
        #expect(await app.snapshot.ids == expected)
        #expect(try test.idsOnDisk() == expected)
        SecondWriterChecks.everyChangeApplies(await recorder.snapshots(settlingOn: app), "the row removed by a write")
    }
}
