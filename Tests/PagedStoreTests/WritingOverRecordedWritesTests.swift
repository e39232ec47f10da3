import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A list that writes after another writer's recorded writes it has not followed yet takes them and
/// its own as one change: the ids it says to reconfigure name rows of both snapshots, as
/// `NSDiffableDataSourceSnapshot.reconfigureItems(_:)` requires (it raises on any other).
@Suite(.limit()) struct WritingOverRecordedWritesTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func aRowAnotherWriterChangedAndThenDeletedIsNotReconfigured() async throws {
        let source = ScriptedSource<Post>()
        let app = try test.feed(source)
        async let opened: Void = app.refresh()
        await source.nextFetch().respond(Page(items: .posts("p", 5), olderCursor: nil))
        await opened
        let recorder = await SnapshotRecorder(app)
        // The app's refresh is held while another process writes twice, each write recorded as the
        // engine records it: p3 changes, then goes. Nothing in this process is told of them.
        async let refreshed: Void = app.refresh()
        let fetch = await source.nextFetch()
        let queue = try DatabaseQueue(path: test.path)
        try queue.write { store in
            var feed = try #require(try store.feed(key: "home"))
            let before = feed
            let item = EncodedItem(itemID: "p3", payload: try ItemCodec<Post>.json.encode(Post(id: "p3", revision: 2)))
            _ = try store.updateItem(item, in: &feed)
            try store.recordChange(from: before, to: feed, bytes: RowChange(reloaded: [3], reloadedIDs: ["p3"]).encoded)
        }
        try queue.write { store in
            var feed = try #require(try store.feed(key: "home"))
            let before = feed
            _ = try store.removeItem("p3", from: &feed)
            try store.recordChange(from: before, to: feed, bytes: RowChange(deleted: [3]).encoded)
        }
        // The refresh commits over both: one change composed of theirs and its own.
        let page = [Post].posts("p", 5).filter { $0.id != "p3" }.map {
            $0.id == "p1" ? Post(id: "p1", revision: 5) : $0
        }
        fetch.respond(Page(items: page, olderCursor: nil))
        await refreshed
        let snapshots = await recorder.snapshots(settlingOn: app)
        SecondWriterChecks.everyChangeApplies(snapshots, "over recorded writes")
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) {
            let named = Set(next.change.reconfiguredIDs)
            #expect(named.isSubset(of: Set(previous.ids).intersection(next.ids)), "\(named) not in both snapshots")
        }
        #expect(await app.snapshot.ids == ["p0", "p1", "p2", "p4"])
    }
}
