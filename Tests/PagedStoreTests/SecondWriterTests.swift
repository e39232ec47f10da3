import Foundation
import PagedStoreTesting
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Two `Feed`s writing one feed of one file (an app and its share extension, each with a store of
/// its own): before every read and write, a feed notices the other's writes and takes the file's
/// rows with one full reload, so no batch it emits is computed on other rows, no row it shows is
/// stale, and an edit pending in either store survives the other's refresh.
@Suite struct SecondWriterTests {
    let test: FeedTestCase

    init() throws {
        test = try FeedTestCase()
    }

    @Test func aNextPageAfterAnotherStoreRefreshedNamesOnlyRowsOfTheListOnScreen() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let share = try test.feed(server.source)
        server.items.insert(contentsOf: [Post].posts("new", 3), at: 0)
        await share.refresh()
        let recorder = await SnapshotRecorder(app)
        await app.loadNextPage()
        let snapshots = await recorder.snapshots(settlingOn: app)
        SecondWriterChecks.everyChangeApplies(snapshots, "next page")
        try SecondWriterChecks.rowsEqualTheFile(await app.snapshot, test, "next page")
        #expect(await app.snapshot.ids == (.posts("new", 3) + .posts("p", 20)).map(\.id))
    }

    @Test func scrollingAfterAnotherStoreInsertedOnTopReadsTheFilesRowsInTheFilesNumbering() async throws {
        let server = ModelServer(.posts("p", 1_000), pageSize: 100)
        let app = try test.feed(server.source)
        await app.refresh()
        for _ in 0..<9 { await app.loadNextPage() }
        #expect(await app.snapshot.rows.count == 1_000)
        let share = try test.feed(server.source)
        for index in 0..<10 { try await share.insert(Post(id: "x\(index)"), at: 0) }
        await app.rowDidAppear(900)
        let snapshot = await app.snapshot
        #expect(snapshot.rows.loadedRange.contains(900))
        try SecondWriterChecks.rowsEqualTheFile(snapshot, test, "scrolled to row 900")
        #expect(snapshot.rows.id(at: 900) == "p890")
    }

    @Test func anItemWhoseContentAnotherStoreChangedIsReloadedAtTheNextWrite() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let share = try test.feed(server.source)
        try await share.update(Post(id: "p2", revision: 7))
        let recorder = await SnapshotRecorder(app)
        await app.loadNextPage()
        let snapshots = await recorder.snapshots(settlingOn: app)
        SecondWriterChecks.everyChangeApplies(snapshots, "next page")
        try SecondWriterChecks.rowsEqualTheFile(await app.snapshot, test, "next page")
        let reloaded = snapshots.dropFirst().contains {
            $0.change.isFullReload || $0.change.reconfiguredIDs.contains("p2")
        }
        #expect(reloaded, "the changed item was never reloaded")
    }

    @Test func aRefreshKeepsAnEditPendingInAnotherStoreOnTopOfTheServersNewValue() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let share = try test.feed(server.source)
        let call = HeldCall()
        let liking = Task {
            try await share.edit(id: "p2", { $0.revision = 100 }, commit: { _ in try await call.outcome() })
        }
        await call.started()
        server.items[2].revision = 1  // the server changed the post meanwhile
        await app.refresh()
        #expect(try test.postsOnDisk()[2] == Post(id: "p2", revision: 100), "the refresh overwrote the pending like")
        #expect(await app.snapshot.rows[2] == Post(id: "p2", revision: 100))
        #expect(try await app.pendingEdits().map(\.itemID) == ["p2"])
        // The call fails: the rollback restores the server's new value, not the one the edit began on.
        call.finish(succeeding: false)
        await #expect(throws: URLError.self) { try await liking.value }
        #expect(try test.postsOnDisk()[2] == Post(id: "p2", revision: 1))
        _ = try await app.identifiers()
        try SecondWriterChecks.rowsEqualTheFile(await app.snapshot, test, "after the rollback")
    }

    @Test(
        arguments:
            0..<UInt64(
                ProcessInfo.processInfo.environment["PAGEDSTORE_SECOND_WRITER_SEQUENCES"].flatMap(Int.init) ?? 24))
    func twoStoresWritingOneFeedInAnyOrderKeepEveryBatchExactAndEveryRowCurrent(seed: UInt64) async throws {
        try await SecondWriterSequence(seed: seed, test: test).run()
    }
}

/// A server call the test answers: succeeding or failing when the test says.
final class HeldCall: @unchecked Sendable {
    // @unchecked: the streams and their continuations are Sendable; nothing else is stored.
    private let stream: AsyncStream<Bool>
    private let continuation: AsyncStream<Bool>.Continuation
    private let called: AsyncStream<Void>
    private let calledContinuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        (called, calledContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// Waits until the call started (its edit is written) or ``refused()`` said it never will.
    func started() async {
        for await _ in called { return }
    }

    /// The edit was refused: the call never starts.
    func refused() { calledContinuation.finish() }

    /// Waits for the test's answer; throws when it is a failure.
    func outcome() async throws {
        calledContinuation.finish()
        for await succeeds in stream {
            if succeeds { return }
            throw URLError(.badServerResponse)
        }
    }

    func finish(succeeding: Bool) {
        continuation.yield(succeeding)
        continuation.finish()
    }
}
