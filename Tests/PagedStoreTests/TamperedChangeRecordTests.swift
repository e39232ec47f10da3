import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A change record edited behind the engine's back (`sqlite3`, a buggy writer, a damaged file) never
/// gives an open list a wrong batch: whatever the record says, every snapshot's change turns the
/// rows before it into its own rows, and the list ends with the file's rows; at worst it takes them
/// whole once.
@Suite(.limit()) struct TamperedChangeRecordTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// What a tampered record says of a write that put "mine" on top of five rows.
    enum Lie: String, CaseIterable, CustomTestStringConvertible {
        /// Counts that add up, rows that do not: the new row at the bottom.
        case insertedAtTheBottom
        /// Counts that add up, rows that do not: the old top row reloaded and a new row below it.
        case topRowReloadedAndOneInsertedBelow
        /// Bytes that do not decode.
        case damagedBytes
        /// A row count before the write that is not the one the list holds.
        case wrongRowCount
        /// Counts that add up, rows that do not: the new row on top and an old row moved below
        /// rows it was above.
        case phantomMove

        var testDescription: String { rawValue }

        /// The recorded row count before the write and the change's bytes.
        func record(rowsBefore: Int) -> (fromRows: Int, bytes: [UInt8]) {
            switch self {
            case .insertedAtTheBottom: (rowsBefore, RowChange(inserted: [rowsBefore]).encoded)
            case .topRowReloadedAndOneInsertedBelow:
                (rowsBefore, RowChange(inserted: [1], reloaded: [0], reloadedIDs: ["p0"]).encoded)
            case .damagedBytes: (rowsBefore, [1, 0, 0xFF, 0xFF, 0xFF])
            case .wrongRowCount: (rowsBefore + 1, RowChange(inserted: [0]).encoded)
            case .phantomMove: (rowsBefore, RowChange(inserted: [0], moved: [(from: 1, to: 3)]).encoded)
            }
        }
    }

    /// Waits on `feed`'s stream until it shows `ids`: the observed list follows by itself.
    func waitUntil(_ feed: Feed<Post>, shows ids: [String]) async {
        for await snapshot in await feed.snapshots where snapshot.ids == ids { return }
    }

    /// Another process's write of "mine" on top of the feed, with a record of its own making, as
    /// `sqlite3` could leave it.
    func writeMineOnTop(recordedAs lie: Lie) throws {
        try DatabaseQueue(path: test.path).write { store in
            var feed = try #require(try store.feed(key: "home"))
            let before = feed
            let item = EncodedItem(itemID: "mine", payload: try ItemCodec<Post>.json.encode(Post(id: "mine")))
            try store.insertItem(item, atRow: 0, local: true, in: &feed)
            var told = before
            told.rowCount = lie.record(rowsBefore: before.rowCount).fromRows
            try store.recordChange(from: told, to: feed, bytes: lie.record(rowsBefore: before.rowCount).bytes)
        }
    }

    @Test(arguments: Lie.allCases)
    func aRecordThatLiesAboutAWriteNeverGivesAWrongBatch(_ lie: Lie) async throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let widget = try test.feed(server.source)  // a store of its own, on the same file
        let recorder = await SnapshotRecorder(widget)
        try writeMineOnTop(recordedAs: lie)
        await waitUntil(widget, shows: ["mine"] + [Post].posts("p", 5).map(\.id))
        let snapshots = await recorder.snapshots(settlingOn: widget)
        SecondWriterChecks.everyChangeApplies(snapshots, "\(lie)")
        try SecondWriterChecks.rowsEqualTheFile(await widget.snapshot, test, "\(lie)")
    }

    /// The list took the rows whole, and says only that: no event counts rows from a change it never
    /// applied.
    @Test(arguments: Lie.allCases)
    func aRecordThatLiesIsReportedOnlyAsTheReloadTheListTook(_ lie: Lie) async throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let widget = try test.feed(server.source)
        let events = await EventRecorder(widget)
        try writeMineOnTop(recordedAs: lie)
        await waitUntil(widget, shows: ["mine"] + [Post].posts("p", 5).map(\.id))
        let following = await events.events(settlingOn: widget).filter {
            $0.kind == .followedOtherWriter || $0.kind == .reloadedFromFile
        }
        #expect(following.map(\.kind) == [.reloadedFromFile], "\(lie)")
        #expect(following.map(\.rowsChanged) == [6], "\(lie)")
        #expect(following.allSatisfy { $0.reason != nil }, "\(lie): a reload says why")
    }
}
