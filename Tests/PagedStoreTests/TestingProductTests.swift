import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// The `PagedStoreTesting` product, used as an app's tests use it: through its public API only (no
/// `@testable` import in this file).
@Suite(.limit(minutes: 3)) struct TestingProductTests {
    @Test func aChangeBuiltByHandIsCheckedAsUIKitWouldCheckIt() throws {
        let good = FeedChange(
            deletedRows: [IndexPath(indexes: [0, 1])], insertedRows: [IndexPath(indexes: [0, 0])],
            reloadedRows: [IndexPath(indexes: [0, 2])])
        #expect(try BatchUpdate.apply(good, to: ["a", "b", "c"], new: ["n", "a", "c"]) == ["n", "a", "c"])
        #expect(try BatchUpdate.apply(.fullReload, to: ["a"], new: ["z"]) == ["z"])

        let outOfRange = FeedChange(deletedRows: [IndexPath(indexes: [0, 3])])
        #expect(throws: BatchUpdate.Mismatch(description: "deleteRows [0, 3]: no such row in the previous snapshot")) {
            try BatchUpdate.apply(outOfRange, to: ["a", "b", "c"], new: ["a", "b"])
        }
        let miscounted = FeedChange(insertedRows: [IndexPath(indexes: [0, 0])])
        #expect(
            throws: BatchUpdate.Mismatch(
                description: "invalid number of rows in section 0: 2 after the update, 2 before in section 0, "
                    + "1 inserted or moved in, 0 deleted or moved out")
        ) { try BatchUpdate.apply(miscounted, to: ["a", "b"], new: ["n", "a"]) }
        let reloadOfDeleted = FeedChange(
            deletedRows: [IndexPath(indexes: [0, 0])], reloadedRows: [IndexPath(indexes: [0, 0])])
        #expect(throws: BatchUpdate.Mismatch.self) { try BatchUpdate.apply(reloadOfDeleted, to: ["a"], new: []) }
        let move = FeedChange(movedRows: [.init(from: IndexPath(indexes: [0, 0]), to: IndexPath(indexes: [1, 0]))])
        #expect(
            try BatchUpdate.apply(move, to: [["a", "b"], ["c"]], new: [["b"], ["a", "c"]]) == [["b"], ["a", "c"]])
    }

    @Test func aChangeThatForgetsAnEditedRowLeavesItStale() throws {
        let id: (String) -> String = { String($0.prefix(1)) }  // "b2" is row "b" edited
        let old = [["a1", "b1"], ["c1"]]
        let edited = [["n1", "a1", "b2"], ["c2"]]
        let insertion = FeedChange(insertedRows: [IndexPath(indexes: [0, 0])])
        #expect(
            try BatchUpdate.staleRows(insertion, from: old, to: edited, id: id) == [
                IndexPath(indexes: [0, 2]), IndexPath(indexes: [1, 0]),
            ])
        var told = insertion
        told.reloadedRows = [IndexPath(indexes: [0, 1]), IndexPath(indexes: [1, 0])]
        #expect(try BatchUpdate.staleRows(told, from: old, to: edited, id: id).isEmpty)

        let move = FeedChange(movedRows: [.init(from: IndexPath(indexes: [0, 0]), to: IndexPath(indexes: [1, 0]))])
        let moved = [["b1"], ["a2", "c1"]]
        #expect(try BatchUpdate.staleRows(move, from: old, to: moved, id: id) == [IndexPath(indexes: [1, 0])])
        var reconfigured = move
        reconfigured.reconfiguredIDs = ["a"]
        #expect(try BatchUpdate.staleRows(reconfigured, from: old, to: moved, id: id).isEmpty)
        #expect(try BatchUpdate.staleRows(.fullReload, from: old, to: moved, id: id).isEmpty)

        // Moved by a deletion and an insertion: a diffable data source keeps the cell, so the id must
        // be reconfigured; and a move to another section.
        let deletedAndInserted = FeedChange(
            deletedRows: [IndexPath(indexes: [0, 0])], insertedRows: [IndexPath(indexes: [0, 1])])
        let swapped = [["b1", "a2"], ["c1"]]
        #expect(
            try BatchUpdate.staleRows(deletedAndInserted, from: old, to: swapped, id: id) == [
                IndexPath(indexes: [0, 1])
            ])
        var namedByID = deletedAndInserted
        namedByID.reconfiguredIDs = ["a"]
        #expect(try BatchUpdate.staleRows(namedByID, from: old, to: swapped, id: id).isEmpty)
        let acrossSections = FeedChange(
            movedRows: [.init(from: IndexPath(indexes: [1, 0]), to: IndexPath(indexes: [0, 2]))])
        let gathered = [["a1", "b1", "c2"], []]
        #expect(
            try BatchUpdate.staleRows(acrossSections, from: old, to: gathered, id: id) == [IndexPath(indexes: [0, 2])])
    }

    @Test func snapshotsCompareAndWaitUntilIdleSettlesAPrefetch() async throws {
        let directory = try TemporaryDirectory()
        let pages = [
            "c1": Page(items: [Post].posts("q", 3), olderCursor: nil),
            "": Page(items: [Post].posts("p", 3), olderCursor: "c1"),
        ]
        let source = ScriptedSource<Post> { request in pages[request.cursor ?? ""] ?? Page(items: [], olderCursor: nil)
        }
        let store = try FeedStore(path: directory.path("feeds.sqlite"))
        let feed = try store.feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        let refreshed = await feed.snapshot
        #expect(refreshed == (await feed.snapshot))
        await feed.rowDidAppear(2)  // prefetches the next page in the background
        await feed.waitUntilIdle()
        let settled = await feed.snapshot
        #expect(settled != refreshed)
        #expect(settled.rows.count == 6 && settled.nextPage == .endReached)
        #expect(source.requests == [.first, .olderThan(cursor: "c1")])
    }
}
