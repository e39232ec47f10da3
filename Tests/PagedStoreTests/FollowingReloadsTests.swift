import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A list follows another store's change that only reloads rows by reading those rows: in a window
/// scrolled down the feed, and when a reload moves a row to another section.
@Suite(.limit(minutes: 3)) struct FollowingReloadsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// Every change `recorder` saw `widget` take applies as a batch, and it shows the file's rows.
    func expectFollowedExactly(
        _ widget: Feed<Post>, _ recorder: SnapshotRecorder<Post>, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        SecondWriterChecks.everyChangeApplies(await recorder.snapshots(settlingOn: widget), context)
        try SecondWriterChecks.rowsEqualTheFile(await widget.snapshot, test, context)
    }

    func waitUntil(_ feed: Feed<Post>, _ condition: @escaping (FeedSnapshot<Post>) -> Bool) async {
        for await snapshot in await feed.snapshots where condition(snapshot) { return }
    }

    @Test func anHonestReloadByAnotherStoreOfAWindowScrolledDownIsFollowedExactly() async throws {
        let server = ModelServer(.posts("p", 600), pageSize: 100)
        let app = try test.feed(server.source)
        await app.refresh()
        for _ in 0..<5 { await app.loadNextPage() }
        let widget = try test.feed(server.source)
        await widget.rowDidAppear(450)
        await waitUntil(widget) { $0.rows.loadedRange.contains(450) }
        let recorder = await SnapshotRecorder(widget)
        let loaded = await widget.snapshot.rows.loadedRange
        let target = loaded.lowerBound + 7
        #expect(try await app.update(Post(id: "p\(target)", revision: 3)))
        // And one above the window.
        #expect(try await app.update(Post(id: "p\(loaded.lowerBound - 3)", revision: 3)), "\(loaded)")
        await waitUntil(widget) { $0.rows.loadedRange.contains(target) && $0.rows[target]?.revision == 3 }
        try await expectFollowedExactly(widget, recorder, "scrolled")
    }

    @Test func aReloadThatMovesARowToAnotherSectionIsFollowedExactly() async throws {
        let server = ModelServer(.posts("p", 6), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let widget = try test.feed(server.source)
        let recorder = await SnapshotRecorder(widget)
        #expect(try await app.update(Post(id: "p2", revision: 1, section: "S")))
        await waitUntil(widget) { $0.rows.count == 6 && $0.rows[2]?.section == "S" }
        try await expectFollowedExactly(widget, recorder, "section")
    }
}
