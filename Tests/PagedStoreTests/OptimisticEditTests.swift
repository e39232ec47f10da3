import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Optimistic edits: shown at once and persisted, rolled back (persisted, with index paths) when the
/// server call fails, kept on top of a refresh that lands while they are pending, and listed after a
/// relaunch.
@Suite(.limit(minutes: 3)) struct OptimisticEditTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    struct Refused: Error {}

    @Test func anEditShowsAtOnceAndStaysWhenTheCallSucceeds() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        let found = try await feed.edit(id: "p2") {
            $0.revision = 7
        } commit: { post async throws in
            // Shown and written before the call runs.
            #expect(post.revision == 7)
            #expect(await feed.snapshot.rows[2]?.revision == 7)
            #expect(await feed.snapshot.change.reloadedRows == [IndexPath(indexes: [0, 2])])
            #expect(await feed.snapshot.change.reconfiguredIDs == ["p2"])
            #expect(try test.payloadOnDisk("p2")?.revision == 7)
            #expect(try await feed.pendingEdits().map(\.itemID) == ["p2"])
        }
        #expect(found)
        #expect(await feed.snapshot.rows[2]?.revision == 7)
        #expect(try await feed.pendingEdits().isEmpty)
        #expect(
            try await feed.edit(id: "absent") {
                $0.revision = 1
            } commit: { _ in
            } == false)
    }

    @Test func aFailedCallRollsTheEditBack() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await #expect(throws: Refused.self) {
            try await feed.edit(id: "p1") {
                $0.revision = 9
            } commit: { _ in
                throw Refused()
            }
        }
        let snapshot = await feed.snapshot
        #expect(snapshot.rows[1]?.revision == 0)
        #expect(snapshot.change.reloadedRows == [IndexPath(indexes: [0, 1])])
        #expect(try test.payloadOnDisk("p1")?.revision == 0)
        #expect(try await feed.pendingEdits().isEmpty)
    }

    @Test func aRefreshDuringTheCallKeepsTheEditOnTopAndARollbackRestoresTheServerValue() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        for succeeds in [false, true] {
            server.items[1].revision += 10  // another user's change lands on the server meanwhile
            let serverRevision = server.items[1].revision
            let call: @Sendable (Post) async throws -> Void = { _ in
                await feed.refresh()
                #expect(await feed.snapshot.rows[1]?.revision == serverRevision + 1, "the edit is re-applied")
                #expect(try test.payloadOnDisk("p1")?.revision == serverRevision + 1)
                if !succeeds { throw Refused() }
            }
            do {
                try await feed.edit(id: "p1", { $0.revision += 1 }, commit: call)
            } catch is Refused {}
            let expected = succeeds ? serverRevision + 1 : serverRevision
            #expect(await feed.snapshot.rows[1]?.revision == expected)
            #expect(try test.payloadOnDisk("p1")?.revision == expected)
        }
        // Committed: the next refresh's server value wins.
        await feed.refresh()
        #expect(await feed.snapshot.rows[1]?.revision == server.items[1].revision)
    }

    @Test func insertsAndRemovesRollBackWithIndexPathsAndSurviveARefresh() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let feed = try test.feed(server.source)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        await #expect(throws: Refused.self) {
            try await feed.insert(Post(id: "mine"), at: 1) { _ in
                await feed.refresh()
                #expect(await feed.snapshot.ids == ["p0", "mine", "p1", "p2", "p3"])
                throw Refused()
            }
        }
        #expect(await feed.snapshot.change.deletedRows == [IndexPath(indexes: [0, 1])])
        await #expect(throws: Refused.self) {
            try await feed.remove(id: "p2") { _ in
                await feed.refresh()  // the server still lists p2: it stays removed while pending
                #expect(await feed.snapshot.change == .none, "p2 came back and was removed again: no row changed")
                #expect(await feed.snapshot.ids == ["p0", "p1", "p3"])
                throw Refused()
            }
        }
        #expect(await feed.snapshot.ids == ["p0", "p1", "p2", "p3"])
        #expect(await feed.snapshot.change.insertedRows == [IndexPath(indexes: [0, 2])])
        #expect(try test.idsOnDisk() == ["p0", "p1", "p2", "p3"])
        try await feed.remove(id: "p0") { _ in server.items.removeFirst() }
        #expect(await feed.snapshot.ids == ["p1", "p2", "p3"])

        let snapshots = await recorder.snapshots(settlingOn: feed)
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) {
            #expect(try BatchUpdate.apply(next.change, to: previous.ids, new: next.ids) == next.ids)
        }
    }

    @Test func aRefreshOverAPendingEditWritesTheServerValueAndTheEditInOneTransaction() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        try await feed.edit(id: "p1") {
            $0.revision = 5
        } commit: { _ in
            server.items[1].revision = 40
            let before = try feed.queue.writeMark().localWrites
            await feed.refresh()
            // Two transactions would leave the server's value on disk, under a pending edit, between them.
            #expect(try feed.queue.writeMark().localWrites == before + 1)
            #expect(try test.payloadOnDisk("p1")?.revision == 5)
        }
    }

    @Test func aRolledBackRemovalGoesRightAboveTheRowThatWasBelowIt() async throws {
        let server = ModelServer(.posts("p", 6), pageSize: 3)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.loadNextPage()
        try await feed.remove(id: "p2")  // only here: the server keeps it
        await #expect(throws: Refused.self) {
            try await feed.remove(id: "p3") { _ in
                // Its page ends at p2: it brings p2 back between p1 and p4, and says nothing of p3.
                await feed.refresh()
                #expect(await feed.snapshot.ids == ["p0", "p1", "p2", "p4", "p5"])
                throw Refused()
            }
        }
        #expect(await feed.snapshot.ids == ["p0", "p1", "p2", "p3", "p4", "p5"])
        await feed.refresh()  // a page ending right above p3 proves nothing against it
        #expect(await feed.snapshot.ids == ["p0", "p1", "p2", "p3", "p4", "p5"])
    }

    @Test func aRemovedItemThatCameBackBetweenItsNeighboursIsRolledBackToItsNewPlace() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 4)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        server.items.insert(contentsOf: [Post].posts("n", 6), at: 0)
        await feed.refresh()  // n0 to n3, a gap, p0 to p2
        let gap = try #require(await feed.snapshot.gaps.first)
        await #expect(throws: Refused.self) {
            try await feed.remove(id: "n3") { _ in
                // Filled from the bottom, the gap brings n3 back between n2 and p0, above n4 and n5 the feed
                // lacked when it was removed: the server lists it there.
                await feed.loadGap(gap, from: .bottom)
                #expect(await feed.snapshot.ids == ["n0", "n1", "n2", "n4", "n5", "p0", "p1", "p2"])
                throw Refused()
            }
        }
        #expect(await feed.snapshot.ids == ["n0", "n1", "n2", "n3", "n4", "n5", "p0", "p1", "p2"])
    }

    @Test func aRemovedItemThatAPageListsAboveItsOldNeighboursIsRolledBackToThatPlace() async throws {
        let (feed, server, _) = try await test.timelineWithAGap()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))  // n10…n19, a gap above p0
        let gap = try #require(await feed.snapshot.gaps.first)
        await #expect(throws: Refused.self) {
            try await feed.remove(id: "p1") { _ in
                let moved = server.items.remove(at: try #require(server.items.firstIndex { $0.id == "p1" }))
                server.items.insert(moved, at: try #require(server.items.firstIndex { $0.id == "n22" }))
                // One page lists n21, p1, n22, …, p0, p2: the item is no longer between p0 and p2.
                await feed.loadGap(gap)
                #expect(await !feed.snapshot.ids.contains("p1"))
                throw Refused()
            }
        }
        let ids = await feed.snapshot.ids
        let n21 = try #require(ids.firstIndex(of: "n21"))
        #expect(Array(ids[n21...].prefix(3)) == ["n21", "p1", "n22"], "back where the page listed it")
        #expect(try test.idsOnDisk() == ids)
    }

    @Test func pendingEditsSurviveARelaunchUntilTheAppSettlesThem() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        let (called, calledContinuation) = AsyncStream.makeStream(of: Void.self)
        let calling = Task {
            try await feed.edit(id: "p0") {
                $0.revision = 5
            } commit: { _ in
                calledContinuation.yield()  // the edit is pending in the file
                try await Task.sleep(for: .seconds(60))  // a server that does not answer
            }
        }
        for await _ in called { break }

        let relaunched = try test.feed(server.source)
        #expect(try await relaunched.pendingEdits().map(\.itemID) == ["p0"])
        #expect(try await relaunched.pendingEdits().map(\.kind) == [.update])
        #expect(await relaunched.snapshot.rows[0]?.revision == 5)
        await relaunched.refresh()
        #expect(await relaunched.snapshot.rows[0]?.revision == 5, "a refresh keeps a pending edit on top")
        try await relaunched.settlePendingEdit(itemID: "p0", committed: false)
        #expect(await relaunched.snapshot.rows[0]?.revision == 0)
        #expect(try await relaunched.pendingEdits().isEmpty)
        calling.cancel()
        _ = await calling.result
    }

    @Test func anItemWithAnEditPendingRefusesASecondOne() async throws {
        let server = ModelServer(.posts("p", 2), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        try await feed.edit(id: "p0") {
            $0.revision = 1
        } commit: { _ in
            await #expect(throws: FeedError.self) {
                try await feed.edit(id: "p0") {
                    $0.revision = 2
                } commit: { _ in
                }
            }
        }
        #expect(await feed.snapshot.rows[0]?.revision == 1)
    }
}

extension FeedTestCase {
    /// The item `id` as the file stores it.
    func payloadOnDisk(_ id: String, key: String = "home") throws -> Post? {
        let stored = try DatabaseQueue(path: path).read { store -> StoredItem? in
            guard let feed = try store.feed(key: key) else { return nil }
            return try store.items(withIDs: [id], in: feed)[id]
        }
        return try stored.map { try JSONDecoder().decode(Post.self, from: $0.payload) }
    }
}
