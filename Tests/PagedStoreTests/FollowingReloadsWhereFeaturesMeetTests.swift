import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Following reload-only changes where the store's features meet: a feed shorter than its window,
/// a window after a trim, several writes composed while the list was not looking, a reload the
/// follower's model cannot decode (read-only or not), an optimistic edit and its rollback, rows held
/// as handed over, and reloads below the window that move rows between sections.
extension FollowingReloadsTests {
    /// A feed of `rows` posts refreshed and paged to its end by one store, and a second store's list
    /// of it (the follower), with the server behind both.
    func loadedFeedAndFollower(rows: Int, pageSize: Int) async throws -> (ModelServer, Feed<Post>, Feed<Post>) {
        let server = ModelServer(.posts("p", rows), pageSize: pageSize)
        let app = try test.feed(server.source)
        await app.refresh()
        for _ in 0...(rows / pageSize) where await app.snapshot.rows.count < rows { await app.loadNextPage() }
        return (server, app, try test.feed(server.source))
    }

    @Test func aFollowerOfAFeedShorterThanItsWindowFollowsAReloadExactly() async throws {
        let (_, app, widget) = try await loadedFeedAndFollower(rows: 40, pageSize: 50)
        await widget.rowDidAppear(0)
        let recorder = await SnapshotRecorder(widget)
        #expect(try await app.update(Post(id: "p39", revision: 2)))
        await waitUntil(widget) { $0.rows[39]?.revision == 2 }
        try await expectFollowedExactly(widget, recorder, "short")
    }

    @Test func aFollowerAfterATrimFollowsAReloadExactly() async throws {
        let (_, app, widget) = try await loadedFeedAndFollower(rows: 400, pageSize: 20)
        await widget.rowDidAppear(390)
        await waitUntil(widget) { $0.rows.loadedRange.contains(390) }
        let recorder = await SnapshotRecorder(widget)
        _ = try await app.trim(maxRows: 250)
        let kept = await app.snapshot.rows.count
        await waitUntil(widget) { $0.rows.count == kept }
        #expect(try await app.update(Post(id: "p\(kept - 1)", revision: 2)))
        #expect(try await app.update(Post(id: "p100", revision: 2)))
        await waitUntil(widget) { $0.rows[kept - 1]?.revision == 2 && $0.rows[100]?.revision == 2 }
        try await expectFollowedExactly(widget, recorder, "trim")
    }

    @Test func aFollowerNotLookingTakesTwoReloadsAndAnInsertComposed() async throws {
        let (_, app, widget) = try await loadedFeedAndFollower(rows: 30, pageSize: 50)
        await widget.rowDidAppear(0)
        // Not observed: it follows at its next read.
        #expect(try await app.update(Post(id: "p3", revision: 1)))
        #expect(try await app.update(Post(id: "p3", revision: 2)))
        #expect(try await app.update(Post(id: "p8", revision: 2)))
        _ = try await widget.update(Post(id: "p20", revision: 5))
        try SecondWriterChecks.rowsEqualTheFile(await widget.snapshot, test, "two reloads")
        #expect(try await app.update(Post(id: "p9", revision: 3)))
        try await app.insert(Post(id: "new"), at: 2)
        _ = try await widget.update(Post(id: "p21", revision: 5))
        try SecondWriterChecks.rowsEqualTheFile(await widget.snapshot, test, "reload then insert")
    }

    /// A codec that cannot decode a post at revision 99 (as an older app meeting a newer one's bytes).
    /// What the picky model throws for a revision it cannot read.
    struct RevisionRefused: Error {}

    static let picky = ItemCodec<Post>(
        storesText: true, encode: { try JSONEncoder().encode($0) },
        decode: { data in
            let post = try JSONDecoder().decode(Post.self, from: data)
            if post.revision == 99 { throw RevisionRefused() }
            return post
        })

    @Test(arguments: [true, false])
    func aFollowerFollowsAReloadItCannotDecode(readOnly: Bool) async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 50)
        let app = try test.feed(server.source)
        await app.refresh()
        let widget = try FeedStore(path: test.path, readOnly: readOnly).feed(
            "home", source: server.source, policy: FeedPolicy(refreshOnOpen: .never), codec: Self.picky)
        await widget.rowDidAppear(0)
        await waitUntil(widget) { $0.rows.loadedRange.count == 30 }
        let recorder = await SnapshotRecorder(widget)
        #expect(try await app.update(Post(id: "p5", revision: 1)))
        await waitUntil(widget) { $0.rows[5]?.revision == 1 }
        try SecondWriterChecks.rowsEqualTheFile(await widget.snapshot, test, "reload")
        #expect(try await app.update(Post(id: "p7", revision: 99)))
        #expect(try await app.update(Post(id: "p3", revision: 4)))
        await waitUntil(widget) { $0.rows[3]?.revision == 4 }
        let snapshots = await recorder.snapshots(settlingOn: widget)
        SecondWriterChecks.everyChangeApplies(snapshots, "undecodable reload")
        let shown = await widget.snapshot
        #expect(shown.rows[5]?.revision == 1)
        if readOnly {
            #expect(shown.rows[7] == nil, "the row it cannot decode is not shown")
        } else {
            try SecondWriterChecks.rowsEqualTheFile(shown, test, "writable removes the row")
        }
    }

    @Test func aFollowerFollowsAnOptimisticEditAndItsRollback() async throws {
        let (_, app, widget) = try await loadedFeedAndFollower(rows: 500, pageSize: 100)
        await widget.rowDidAppear(420)
        await waitUntil(widget) { $0.rows.loadedRange.contains(420) }
        let recorder = await SnapshotRecorder(widget)
        await #expect(throws: RevisionRefused.self) {
            _ = try await app.edit(id: "p420", { $0.revision = 9 }) { _ in throw RevisionRefused() }
        }
        #expect(try await app.update(Post(id: "p421", revision: 3)))
        await waitUntil(widget) { $0.rows[421]?.revision == 3 }
        try await expectFollowedExactly(widget, recorder, "edit rollback")
    }

    @Test func aFollowerWhoseWindowHoldsHandedOverRowsFollowsAReload() async throws {
        let (server, app, widget) = try await loadedFeedAndFollower(rows: 30, pageSize: 50)
        server.items[4] = Post(id: "p4", revision: 5)
        await widget.refresh()
        let recorder = await SnapshotRecorder(widget)
        #expect(try await app.update(Post(id: "p6", revision: 2)))
        await waitUntil(widget) { $0.rows[6]?.revision == 2 }
        try await expectFollowedExactly(widget, recorder, "handed over")
    }

    @Test func aReloadBelowTheWindowThatMovesARowToAnotherSectionIsFollowedAsAFreshListShowsIt() async throws {
        let (server, app, widget) = try await loadedFeedAndFollower(rows: 500, pageSize: 100)
        await widget.rowDidAppear(0)
        await waitUntil(widget) { $0.rows.loadedRange.contains(0) }
        let recorder = await SnapshotRecorder(widget)
        #expect(try await app.update(Post(id: "p450", revision: 1, section: "S")))
        #expect(try await app.update(Post(id: "p10", revision: 1)))
        await waitUntil(widget) { $0.rows[10]?.revision == 1 }
        let snapshots = await recorder.snapshots(settlingOn: widget)
        let fresh = try test.feed(server.source)
        await fresh.rowDidAppear(0)
        let expected = await fresh.snapshot.sections
        let shown = await widget.snapshot.sections
        #expect(shown == expected, "follower's sections \(shown) differ from a fresh list's \(expected)")
        expectSectionChangesAreTold(snapshots, "section below")
        try SecondWriterChecks.rowsEqualTheFile(await widget.snapshot, test, "section below")
    }

    /// Every snapshot whose section count differs from the one before says which sections came or went.
    func expectSectionChangesAreTold(_ snapshots: [FeedSnapshot<Post>], _ context: String) {
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) {
            let change = next.change
            let told = previous.sections.count - change.deletedSections.count + change.insertedSections.count
            #expect(
                change.isFullReload || told == next.sections.count,
                "\(context): \(previous.sections.count) sections became \(next.sections.count), the change says \(change)"
            )
        }
    }

    @Test func aReloadBelowAFollowersWindowThatMakesNewSectionsTellsThem() async throws {
        let (_, app, widget) = try await loadedFeedAndFollower(rows: 500, pageSize: 100)
        await widget.rowDidAppear(0)
        await waitUntil(widget) { $0.rows.loadedRange.contains(0) }
        let recorder = await SnapshotRecorder(widget)
        let own = await SnapshotRecorder(app)
        #expect(try await app.update(Post(id: "p450", revision: 1, section: "S")))
        await waitUntil(widget) { $0.sections.count == 3 }
        expectSectionChangesAreTold(await own.snapshots(settlingOn: app), "the writer")
        let seen = await recorder.snapshots(settlingOn: widget)
        expectSectionChangesAreTold(seen, "the follower")
    }

    @Test func twoWritesABelowWindowSectionMoveAndAReloadTellTheNewSectionsToAFollower() async throws {
        let (_, app, widget) = try await loadedFeedAndFollower(rows: 500, pageSize: 100)
        await widget.rowDidAppear(0)
        await waitUntil(widget) { $0.rows.loadedRange.contains(0) }
        let recorder = await SnapshotRecorder(widget)
        #expect(try await app.update(Post(id: "p450", revision: 1, section: "S")))
        #expect(try await app.update(Post(id: "p10", revision: 1)))
        await waitUntil(widget) { $0.sections.count == 3 && $0.rows[10]?.revision == 1 }
        let seen = await recorder.snapshots(settlingOn: widget)
        expectSectionChangesAreTold(seen, "the follower")
    }

    @Test func aFollowerNotLookingTakesASectionMoveBelowItsWindowAndAReloadComposed() async throws {
        let (server, app, widget) = try await loadedFeedAndFollower(rows: 500, pageSize: 100)
        await widget.rowDidAppear(0)
        #expect(try await app.update(Post(id: "p450", revision: 1, section: "S")))
        #expect(try await app.update(Post(id: "p10", revision: 1)))
        _ = try await widget.update(Post(id: "p20", revision: 2))
        let fresh = try test.feed(server.source)
        await fresh.rowDidAppear(0)
        let expected = await fresh.snapshot.sections
        #expect(await widget.snapshot.sections == expected)
        try SecondWriterChecks.rowsEqualTheFile(await widget.snapshot, test, "composed section move")
    }
}
