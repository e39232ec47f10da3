import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Two promises, tried with hostile files: a row the codec cannot decode costs that row only, and a feed
/// notices another `Feed`'s write before it reads or writes. Real SQLite files, no mocks; races
/// ordered by held fetches and held calls, never by sleeps.
@Suite(.limit()) struct FileContentsNeverBreakAListTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// Replaces the payload of `id` with text that is not an item, as sqlite3 would.
    func damage(_ ids: [String]) throws {
        try DatabaseQueue(path: test.path).write { store in
            for id in ids {
                try store.connection.execute("UPDATE item SET payload = '{\"broken' WHERE item_id = '\(id)'")
            }
        }
    }

    /// Every snapshot's row count follows from the one before and its change (for feeds larger than
    /// their window, where `ReferenceModelTests.check` cannot compare ids).
    func countsAddUp(_ snapshots: [FeedSnapshot<Post>], _ context: String) {
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) where !next.change.isFullReload {
            let deleted = next.change.deletedRows.count
            let inserted = next.change.insertedRows.count
            #expect(
                previous.rows.count - deleted + inserted == next.rows.count,
                "\(context): \(previous.rows.count) rows - \(deleted) + \(inserted) != \(next.rows.count)")
        }
    }

    /// The snapshot counts the file's rows, and each loaded row is the file's row there (ids and
    /// content); rows the feed has not read yet may be damaged in the file.
    func loadedRowsAreTheFiles(_ snapshot: FeedSnapshot<Post>, _ context: String) throws {
        let file = try Fixtures.rows(of: "home", in: DatabaseQueue(path: test.path))
        #expect(
            snapshot.rows.count == file.count, "\(context): \(snapshot.rows.count) rows, the file has \(file.count)")
        for row in snapshot.rows.loadedRange {
            let stored = file.indices.contains(row) ? try? ItemCodec<Post>.json.decode(file[row].payload) : nil
            #expect(snapshot.rows[row] == stored, "\(context): row \(row) is not the file's")
        }
    }

    // MARK: - Feature A: a row the codec cannot decode costs that row only

    /// Expected: a damaged row that has an optimistic edit pending is removed with its edit when the
    /// feed next reads it, and reported once as `.undecodableRowsRemoved`; the pending edit's
    /// re-application must not silently overwrite it (making the garbage payload the edit's base,
    /// which a rollback would write back).
    @Test func aDamagedRowWithAPendingEditIsRemovedAndReported() async throws {
        let server = ModelServer(.posts("p", 20), pageSize: 50)
        let feed = try test.feed(server.source)
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        let events = await feed.events
        let call = HeldCall()
        let liking = Task {
            try await feed.edit(id: "p3", { $0.revision = 100 }, commit: { _ in try await call.outcome() })
        }
        await call.started()
        try damage(["p3"])  // a hand edit, or another version of the app, while the like is pending
        try await feed.remove(id: "p10")  // re-reads the window
        let onDisk = try test.idsOnDisk()
        #expect(!onDisk.contains("p3"), "the damaged row p3 is still in the cache: \(onDisk)")
        let pending = try await feed.pendingEdits().map(\.itemID)
        #expect(pending.isEmpty, "the damaged row's edit is still pending: \(pending)")
        let base = try DatabaseQueue(path: test.path).read { store in
            try store.connection.int64("SELECT count(*) FROM pending_edit WHERE base LIKE '{\"broken%'")
        }
        #expect(base == 0, "a pending edit took the damaged payload as its base")
        call.finish(succeeding: true)
        _ = try? await liking.value
        if !onDisk.contains("p3") {
            let removed = await events.first(.undecodableRowsRemoved)
            #expect(removed?.itemIDs == ["p3"])
        }
        try await ReferenceModelTests.check(recorder, feed, test, "a damaged row with a pending edit")
    }

    /// Expected: the saved reading row became undecodable; the relaunch opens at its place, on the row
    /// that took it, with the damaged row removed and reported.
    @Test func aReadingPositionSavedOnARowThatBecameUndecodableOpensAtItsPlace() async throws {
        let server = ModelServer(.posts("p", 200), pageSize: 100)
        let policy = FeedPolicy(refreshOnOpen: .never, windowSize: 50, firstScreenRows: 50, keepsReadingPosition: true)
        let first = try test.feed(server.source, policy: policy)
        await first.refresh()
        await first.loadNextPage()
        await first.setVisibleRows(120..<130, offset: 7)
        try await first.saveReadingPosition()
        try damage(["p120"])

        let feed = try test.feed(server.source, policy: policy)
        let events = await feed.events
        let snapshot = await feed.snapshot
        #expect(snapshot.rows.count == 199)
        #expect(snapshot.rows.id(at: 120) == "p121", "the row that took the place is loaded")
        let place = await feed.readingPosition
        #expect(place?.row == 120 && place?.itemID == "p121", "opened at \(String(describing: place))")
        let removed = await events.first(.undecodableRowsRemoved)
        #expect(removed?.itemIDs == ["p120"])
        try SecondWriterChecks.rowsEqualTheFile(snapshot, test, "reopened")
    }

    /// Expected: a damaged one-row section between two runs of the same key goes, the runs merge, and
    /// the change still applies as UIKit reads it.
    @Test func aDamagedRowThatIsAWholeSectionBetweenTwoRunsOfOneKey() async throws {
        let list: [Post] =
            .posts("a", 5, section: "A") + .posts("b", 1, section: "B")
            + (5..<10).map { Post(id: "a\($0)", section: "A") }
        let server = ModelServer(list, pageSize: 50)
        let feed = try test.feed(server.source)
        await feed.refresh()
        #expect(await feed.snapshot.sections.count == 3)
        let recorder = await SnapshotRecorder(feed)
        try damage(["b0"])
        try await feed.remove(id: "a9")
        #expect(await feed.snapshot.sections.map(\.rowCount) == [9])
        try await ReferenceModelTests.check(recorder, feed, test, "a damaged section")
    }

    /// Expected: damaged rows right above and right below a gap go; the gap stays between the same
    /// rows, and fills from either end.
    @Test func damagedRowsRightAboveAndBelowAGap() async throws {
        let (feed, _, _) = try await test.timelineWithAGap()
        let recorder = await SnapshotRecorder(feed)
        #expect(await feed.snapshot.gaps.map(\.afterRow) == [9])
        try damage(["n9", "p0"])
        try await feed.remove(id: "n0")
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == (1..<9).map { "n\($0)" } + (1..<10).map { "p\($0)" })
        #expect(snapshot.gaps.map(\.afterRow) == [7], "the gap is still after n8: \(snapshot.gaps)")
        try await ReferenceModelTests.check(recorder, feed, test, "rows around a gap damaged")
        if let gap = await feed.snapshot.gaps.first {
            await feed.loadGap(gap, from: gap.canFillFromBottom ? .bottom : .top)
            try await ReferenceModelTests.check(recorder, feed, test, "the gap filled")
        }
    }

    /// Expected: a run of damaged rows longer than the window, met while scrolling a 2,000-row feed
    /// with a window of 50, goes; every change adds up, every row loaded is the file's.
    @Test func aRunOfDamagedRowsLongerThanTheWindowWhileScrolling() async throws {
        let server = ModelServer(.posts("p", 2_000), pageSize: 200)
        let writer = try test.feed(server.source)
        await writer.refresh()
        while await writer.snapshot.nextPage == .idle { await writer.loadNextPage() }
        try damage((1_000..<1_080).map { "p\($0)" } + ["p1999"])

        let policy = FeedPolicy(refreshOnOpen: .never, windowSize: 50, firstScreenRows: 50)
        let feed = try test.feed(server.source, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        var row = 0
        while row < (await feed.snapshot.rows.count) {
            await feed.rowDidAppear(row)
            let snapshot = await feed.snapshot
            #expect(snapshot.rows.loadedRange.contains(min(row, snapshot.rows.count - 1)), "row \(row) not loaded")
            try loadedRowsAreTheFiles(snapshot, "row \(row)")
            row += 20
        }
        await feed.rowDidAppear(await feed.snapshot.rows.count - 1)
        let snapshots = await recorder.snapshots(settlingOn: feed)
        countsAddUp(snapshots, "scrolling over damaged rows")
        #expect(await feed.snapshot.rows.count == 1_919)
        #expect(try test.idsOnDisk().count == 1_919)
        #expect(await feed.snapshot.rows.id(at: 1_918) == "p1998")
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    // MARK: - Feature B: a feed notices another writer

    /// Expected: `identifiers(of:)` returns the ids of the snapshot it was given, or nil when the feed
    /// moves on; never the ids of a newer snapshot under the old one's name. The documented loop builds
    /// a diffable snapshot from these ids with the given snapshot's change and rows.
    @Test func identifiersOfASnapshotAreThatSnapshotsWhenAnotherStoreWroteMeanwhile() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let shown = await app.snapshot
        #expect(shown.rows.count == 10)
        // The other store writes after the snapshot was taken and before its ids are asked for.
        let share = try test.feed(server.source)
        try await share.insert(Post(id: "shared"), at: 0)
        if let identifiers = try await app.identifiers(of: shown) {
            #expect(
                identifiers.sequence == shown.sequence,
                "asked for snapshot \(shown.sequence), got the ids of snapshot \(identifiers.sequence)")
            #expect(
                identifiers.all == shown.ids,
                "\(identifiers.all.count) ids for a snapshot of \(shown.rows.count) rows: \(identifiers.all.prefix(3))")
        }
    }

    /// Expected: another store fills a gap with a page of rows this feed already has (the server
    /// deleted what was in it), which closes the gap without new rows; this feed, at its next read or
    /// when the user taps the gap, drops the gap instead of showing it for ever.
    @Test func aGapAnotherStoreClosedWithoutNewRowsGoesHereToo() async throws {
        let (app, server, source) = try await test.timelineWithAGap(answering: { request, server in
            guard request == .olderThan(cursor: "n9") else { return nil }
            // The server deleted n10…n24: the page after n9 starts with p0, which the feed has.
            return Page(items: Array(server.items.drop(while: { $0.id != "p0" }).prefix(10)), olderCursor: "p9")
        })
        _ = server
        let share = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        let gap = try #require(await share.snapshot.gaps.first)
        await share.loadGap(gap)
        #expect(await share.snapshot.gaps.isEmpty, "the share store's fill closed the gap")
        #expect(
            try DatabaseQueue(path: test.path).read { store in try store.gaps(of: store.feed(key: "home")!) }.isEmpty)

        _ = try await app.identifiers()  // a read: the app looks at the file
        let afterRead = await app.snapshot.gaps
        #expect(afterRead.isEmpty, "after a read the app still shows the gap the file no longer has: \(afterRead)")
        let requests = source.requests.count
        if let stale = await app.snapshot.gaps.first { await app.loadGap(stale) }
        let afterTap = await app.snapshot.gaps
        #expect(afterTap.isEmpty, "after the user tapped it the app still shows the closed gap: \(afterTap)")
        #expect(source.requests.count == requests, "the app fetched a gap the file no longer has")
    }

    /// Expected: another store found the gap unfillable (the server has nothing between its edges);
    /// this feed shows it unfillable at its next read and does not fetch it again.
    @Test func aGapAnotherStoreFoundUnfillableIsUnfillableHereToo() async throws {
        let (app, _, source) = try await test.timelineWithAGap(answering: { request, _ in
            guard request == .olderThan(cursor: "n9") else { return nil }
            return Page(items: [], olderCursor: nil)
        })
        let share = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        let gap = try #require(await share.snapshot.gaps.first)
        await share.loadGap(gap)
        #expect(await share.snapshot.gaps.map(\.state) == [.unfillable])

        _ = try await app.identifiers()
        let states = await app.snapshot.gaps.map(\.state)
        #expect(states == [.unfillable], "after a read the app shows the gap as \(states)")
        let requests = source.requests.count
        if let stale = await app.snapshot.gaps.first { await app.loadGap(stale) }
        #expect(source.requests.count == requests, "the app fetched a gap the file says is unfillable")
    }

    /// Expected: another store (or `pagedb`) deleted the feed; scrolling, the feed's next read, takes
    /// the file's rows: none, not a thousand rows it can no longer load.
    @Test func aFeedAnotherStoreDeletedIsEmptyHereAtTheNextRead() async throws {
        let server = ModelServer(.posts("p", 1_000), pageSize: 100)
        let policy = FeedPolicy(refreshOnOpen: .never, windowSize: 50, firstScreenRows: 50)
        let app = try test.feed(server.source, policy: policy)
        await app.refresh()
        for _ in 0..<9 { await app.loadNextPage() }
        #expect(await app.snapshot.rows.count == 1_000)
        try DatabaseQueue(path: test.path).write { store in
            try store.deleteFeed(try #require(try store.feed(key: "home")))
        }
        await app.rowDidAppear(900)
        let scrolled = await app.snapshot
        #expect(
            scrolled.rows.count == 0,
            "the app shows \(scrolled.rows.count) rows (loaded \(scrolled.rows.loadedRange)) of a deleted feed")
        let identifiers = try await app.identifiers()
        #expect(identifiers.all.count == (await app.snapshot.rows.count), "the identifiers disagree with the rows")
        try SecondWriterChecks.rowsEqualTheFile(await app.snapshot, test, "after another store deleted the feed")
    }

    /// Expected (kept as a guard; passes): two `Feed`s of one key in ONE store (one connection,
    /// `data_version` never moves): a next page held while the other refreshes and removes a row
    /// commits with a change that applies, and the rows are the file's.
    @Test func twoFeedsOfOneKeyInOneStoreInterleaved() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let store = try test.store()
        let held = ScriptedSource<Post>()
        let other = try test.feed(server.source, store: store)
        await other.refresh()
        let app = try test.feed(held, store: store)
        let recorder = await SnapshotRecorder(app)
        let next = Task { await app.loadNextPage() }
        let fetch = await held.nextFetch()
        server.items.insert(contentsOf: [Post].posts("new", 3), at: 0)
        await other.refresh()
        try await other.remove(id: "p5")
        fetch.respond(server.page(for: fetch.request))
        await next.value
        let snapshots = await recorder.snapshots(settlingOn: app)
        SecondWriterChecks.everyChangeApplies(snapshots, "one store, two feeds")
        try SecondWriterChecks.rowsEqualTheFile(await app.snapshot, test, "one store, two feeds")
        try await ReferenceModelTests.check(recorder, app, test, "one store, two feeds")
    }

    /// Expected (kept as a guard): a new `cacheVersion` opened by another store while this feed is open
    /// empties this feed at its next read, and the change applies.
    @Test func aCacheVersionBumpByAnotherStoreEmptiesThisFeedAtItsNextRead() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        let recorder = await SnapshotRecorder(app)
        let bumped = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 2))
        #expect(await bumped.snapshot.rows.count == 0)
        _ = try await app.identifiers()
        let snapshot = await app.snapshot
        #expect(snapshot.rows.count == 0 && snapshot.content == .initialLoading)
        try await ReferenceModelTests.check(recorder, app, test, "another store bumped the cache version")
    }
}
