import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Two `Feed`s writing one feed of one file (an app and its share extension, each with a store of
/// its own): before every read and write, a feed notices the other's writes and takes the file's
/// rows with one full reload, so no batch it emits is computed on other rows, no row it shows is
/// stale, and an edit pending in either store survives the other's refresh.
@Suite(.limit(minutes: 15)) struct SecondWriterTests {
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

    @Test func anItemWhoseContentAnotherStoreChangedIsReloadedByTheNextWriteAtTheLatest() async throws {
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
        // The app follows the other store's write as it commits, or at its own next write: either
        // way the snapshot that shows the new content names the row.
        #expect(await app.snapshot.rows[2]?.revision == 7)
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) where previous.rows[2] != next.rows[2] {
            #expect(next.change.isFullReload || next.change.reconfiguredIDs.contains("p2"), "p2 changed unnamed")
        }
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

/// A feed that another store (a second process) wrote under: it catches up with the other's next
/// pages, refreshes, edits and gap fills, a refresh from before a relaunch never overwrites a newer
/// one, and two stores hammering one feed keep the file valid.
extension SecondWriterTests {
    /// When another store (an app extension, a second process) loads the feed's next page, this
    /// feed's next pages catch up: it reaches the end with every server item, in order.
    /// It guarded against a superseded next page never reading the record again, so later ones kept a stale cursor.
    @Test func aFeedCatchesUpWhenAnotherStoreLoadedItsNextPage() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mine = try test.feed(server.source)
        await mine.refresh()
        let other = try test.feed(server.source)  // a second store on the same file
        await other.loadNextPage()
        #expect(try test.idsOnDisk().count == 20)
        for _ in 0..<5 where await mine.snapshot.nextPage != .endReached { await mine.loadNextPage() }
        let snapshot = await mine.snapshot
        #expect(snapshot.nextPage == .endReached, "stuck at \(snapshot.ids.count) rows, next page \(snapshot.nextPage)")
        #expect(snapshot.ids == server.items.map(\.id))
    }

    /// A local edit after another store changed the feed (here: removed one row and inserted one, so
    /// the count is unchanged): the last snapshot shows the file's rows, and each snapshot's change
    /// turns the previous snapshot's rows into its own. The feed takes the file's rows first, with a
    /// full reload, and then emits the edit.
    /// It guarded against the edit's change, computed on the file's rows, being applied to the rows in memory.
    @Test func aLocalEditsChangeAppliesAfterAnotherStoreEditedTheFeed() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mine = try test.feed(server.source)
        await mine.refresh()
        let other = try test.feed(server.source)
        try await other.remove(id: "p3")
        try await other.insert(Post(id: "x"), at: 0)
        let recorder = await SnapshotRecorder(mine)
        try await mine.update(Post(id: "p5", revision: 1))
        let snapshots = await recorder.snapshots(settlingOn: mine)
        #expect(snapshots.last?.ids == (try test.idsOnDisk()))
        for (before, after) in zip(snapshots, snapshots.dropFirst()) {
            #expect(try BatchUpdate.apply(after.change, to: before.ids, new: after.ids) == after.ids)
        }
    }

    /// After another store commits a refresh (the file's generation moves on), this feed still loads
    /// next pages without refreshing itself.
    /// It guarded against its next pages being dropped as superseded, as nothing adopted the file's generation.
    @Test func aFeedStillPaginatesAfterAnotherStoreRefreshedIt() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mine = try test.feed(server.source)
        await mine.refresh()
        server.items = .posts("n", 3) + server.items
        await (try test.feed(server.source)).refresh()  // another process: n0…n2 on top
        for _ in 0..<3 { await mine.loadNextPage() }
        let snapshot = await mine.snapshot
        #expect(snapshot.ids.count > 10, "stuck at \(snapshot.ids.count) rows, next page \(snapshot.nextPage)")
    }

    /// A refresh started before a relaunch (the old process, or an app extension, still waiting for
    /// its response) and answered after the relaunched feed's newer refresh leaves the newer one in
    /// the file: n0…n2 stay on top, and the edited p0 keeps its revision.
    /// It guarded against both refreshes bumping the file's generation to one value, so the stale page won.
    @Test func aRefreshFromBeforeARelaunchNeverOverwritesTheRelaunchedFeedsNewerRefresh() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do { await (try test.feed(server.source)).refresh() }
        let slow = ScriptedSource<Post>()
        let old = try test.feed(slow)
        async let oldRefresh: Void = old.refresh()
        let fetch = await slow.nextFetch()
        let stalePage = server.page(for: .first)  // what the old process's request sees
        server.items = .posts("n", 3) + [Post(id: "p0", revision: 1)] + server.items.dropFirst()
        let relaunched = try test.feed(server.source)
        await relaunched.refresh()
        #expect(try test.idsOnDisk().prefix(4) == ["n0", "n1", "n2", "p0"])
        fetch.respond(stalePage)
        _ = await oldRefresh
        let onDisk = try test.idsOnDisk()
        #expect(onDisk.prefix(4) == ["n0", "n1", "n2", "p0"], "the older response was written over the newer one")
        let fresh = try test.feed(server.source)
        #expect(await fresh.snapshot.rows[onDisk.firstIndex(of: "p0") ?? 0]?.revision == 1)
    }

    /// When another store fills a gap, this feed's copy of the gap goes too, and the feed shows the
    /// file's rows, those the other store wrote among them.
    /// It guarded against this feed's fills finding the gap gone and changing nothing, its "load more" row staying.
    @Test func aGapThatAnotherStoreFilledLeavesThisFeedToo() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let mine = try test.feed(server.source, policy: policy)
        await mine.refresh()
        server.items = .posts("n", 15) + server.items
        await mine.refresh()
        let other = try test.feed(server.source, policy: policy)
        await other.loadGap(try #require(await other.snapshot.gaps.first))
        #expect(await other.snapshot.gaps.isEmpty)
        for _ in 0..<3 {
            guard let gap = await mine.snapshot.gaps.first else { break }
            await mine.loadGap(gap)
        }
        let snapshot = await mine.snapshot
        #expect(snapshot.gaps.isEmpty, "the filled gap still shows: \(snapshot.gaps)")
        #expect(snapshot.ids == (try test.idsOnDisk()))
    }

    /// Two stores on one file hammer the same feed at once (refresh, next pages, gap fills, local
    /// edits, trims); the file stays valid, holds no id twice, and a fresh feed on it scrolls to
    /// every server item.
    @Test(arguments: 0..<8) func twoStoresHammeringOneFeedKeepTheFileValid(seed: Int) async throws {
        let server = ModelServer(.posts("p", 60), pageSize: 7)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let slow = ScriptedSource<Post> { request in
            try await Task.sleep(for: .microseconds(Int.random(in: 0...800)))
            return server.page(for: request)
        }
        let feeds = [try test.feed(slow, policy: policy), try test.feed(slow, policy: policy)]
        await feeds[0].refresh()
        let serial = Locked(0)
        let removed = Locked(Set<String>())
        await withTaskGroup(of: Void.self) { group in
            for (index, feed) in feeds.enumerated() {
                group.addTask {
                    var random = SplitMix64(seed: UInt64(seed * 2 + index))
                    for step in 0..<25 {
                        let snapshot = await feed.snapshot
                        switch Int.random(in: 0..<8, using: &random) {
                        case 0:
                            let n = serial.increment()
                            server.items =
                                (0..<Int.random(in: 1...9, using: &random)).map {
                                    Post(id: "s\(n)-\($0)")
                                } + server.items
                        case 1: await feed.refresh()
                        case 2: await feed.loadNextPage()
                        case 3: if let gap = snapshot.gaps.first { await feed.loadGap(gap) }
                        case 4:
                            try? await feed.insert(
                                Post(id: "l\(index)-\(step)"),
                                at: Int.random(in: 0...snapshot.rows.count, using: &random))
                        case 5:
                            if let id = snapshot.rows.id(at: 0) {
                                removed.insert(id)
                                _ = try? await feed.remove(id: id)
                            }
                        case 6: _ = try? await feed.trim(maxRows: Int.random(in: 0...30, using: &random))
                        default: await feed.retry()
                        }
                    }
                }
            }
        }
        for feed in feeds { await feed.waitUntilIdle() }
        let violations = try DatabaseQueue(path: test.path).read { try $0.verify() }
        #expect(violations.isEmpty, "\(violations)")
        let disk = try test.idsOnDisk()
        #expect(Set(disk).count == disk.count, "an id twice on disk")
        let whole = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 100_000, firstScreenRows: 100_000)
        let fresh = try test.feed(server.source, policy: whole)
        await fresh.refresh()
        try await scrollToTheEnd(fresh)
        let shown = await fresh.snapshot.ids
        let listed = server.items.map(\.id)
        let missing = Set(listed).subtracting(shown).subtracting(removed.value)
        #expect(missing.isEmpty, "never fetched: \(missing.sorted())")
    }
}
