import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// A feed open in this process while `pagedb apply`, another process, writes the same feed.
extension MultiProcessTests {
    /// The item `pagedb` writes: an id and, on an edited post, a flag.
    struct Entry: FeedItem, Codable, Equatable {
        let id: String
        var edited: Bool?
    }

    @Test func aFeedTakesTheRowsAnotherProcessWroteBeforeItsNextPage() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("shared.sqlite")
        let first = try scratch.file(
            "first.json", #"{"items":[{"id":"p1"},{"id":"p2"},{"id":"p3"}],"next_cursor":"c3","previous_cursor":"n1"}"#)
        #expect(
            try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", first, "--as", "refresh"]).status == 0)
        let source = ScriptedSource<Entry> { request in
            #expect(request == .olderThan(cursor: "c3"))
            return Page(items: [Entry(id: "p4"), Entry(id: "p5")], olderCursor: nil)
        }
        let store = try FeedStore(path: db)
        let feed = try store.feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        let recorder = await SnapshotRecorder(feed)
        // The other process refreshes: two new posts on top, and p2's content changed.
        let newer = try scratch.file(
            "newer.json",
            #"{"items":[{"id":"n1"},{"id":"n2"},{"id":"p1"},{"id":"p2","edited":true}],"next_cursor":"c2","previous_cursor":"n0"}"#
        )
        let refresh = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", newer, "--as", "refresh"])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        await feed.loadNextPage()
        let snapshots = await recorder.snapshots(settlingOn: feed)
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) {
            let old = previous.rows.indices.map { previous.rows.id(at: $0) ?? "" }
            let new = next.rows.indices.map { next.rows.id(at: $0) ?? "" }
            do {
                #expect(try BatchUpdate.apply(next.change, to: old, new: new) == new)
            } catch {
                Issue.record("UIKit would reject \(next.change): \(error)")
            }
        }
        let shown = await feed.snapshot.rows.loadedItems
        #expect(shown.map(\.id) == ["n1", "n2", "p1", "p2", "p3", "p4", "p5"])
        #expect(shown.first { $0.id == "p2" }?.edited == true, "the row another process changed is stale")
        let file = try DatabaseQueue(path: db).read { store in
            try store.window(of: try #require(try store.feed(key: "home")), from: .top, limit: 100)
        }
        #expect(try file.map { try ItemCodec<Entry>.json.decode($0.payload) } == shown)
        store.close()
    }

    /// Read-only too, as a widget opens the app's cache: it follows the other process all the same.
    @Test(.limit(), arguments: [false, true])
    func anObservedFeedShowsAnotherProcessesWriteWithoutBeingAsked(readOnly: Bool) async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("shared.sqlite")
        let first = try scratch.file(
            "first.json", #"{"items":[{"id":"p1"},{"id":"p2"}],"next_cursor":"c2","previous_cursor":"n1"}"#)
        #expect(
            try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", first, "--as", "refresh"]).status == 0)
        let store = try FeedStore(path: db, readOnly: readOnly)
        let feed = try store.feed(
            "home", source: ScriptedSource<Entry> { _ in Page(items: [], olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        let snapshots = await feed.snapshots
        let newer = try scratch.file(
            "newer.json", #"{"items":[{"id":"n1"},{"id":"p1"},{"id":"p2"}],"next_cursor":"c2","previous_cursor":"n0"}"#)
        let refresh = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", newer, "--as", "refresh"])
        #expect(refresh.status == 0, "\(refresh.stderr)")
        // Nothing asks the feed: the snapshot comes from its own look at the file.
        for await snapshot in snapshots where snapshot.rows.loadedItems.map({ $0.id }) == ["n1", "p1", "p2"] {
            break
        }
        #expect(await feed.snapshot.rows.loadedItems.map(\.id) == ["n1", "p1", "p2"])
        store.close()
    }
}
