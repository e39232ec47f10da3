import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Server deletions where features meet and where the server is hostile: a page proves deletions
/// only where it is attached (a bottom fill answered with the newest page, a next page with a moved
/// row), and the deletions it proves apply as UIKit reads them across sections, near the reader's
/// place, in a feed bigger than its row window, and with a local flag edited outside the app.
@Suite(.limit(minutes: 3)) struct ServerDeletionAcrossFeaturesTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A bottom fill answered since_id-style (the newest page, not the page right above the
    /// cursor) reaches rows above the gap but is not attached to the gap's lower edge: it says
    /// nothing of the rows between its last item and the gap.
    @Test func aBottomFillAnsweredWithTheNewestPageDeletesNothingItDidNotList() async throws {
        let (feed, _, recorder) = try await test.recordedTimelineWithAGap { request, _ in
            guard case .newerThan = request else { return nil }
            // Five posts arrived on top meanwhile; the server ignores min_id and answers its top.
            let top = [Post].posts("m", 5) + [Post].posts("n", 5)
            return Page(items: top, olderCursor: "n4", newerCursor: "new:m0")
        }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: .bottom)
        let ids = await feed.snapshot.ids
        #expect(Array(ids.prefix(10)) == (0..<10).map { "n\($0)" }, "n5…n9 are still on the server")
        try await ReferenceModelTests.check(recorder, feed, test, "since_id-style bottom fill")
    }

    /// The same with nothing new on top: the newest page is n0…n4, the top half of the rows above
    /// the gap. Nothing follows its last row, so it says nothing of n5…n9.
    @Test func aBottomFillAnsweredWithTheNewestPageAndNothingNewDeletesNothingBelowIt() async throws {
        let (feed, _, recorder) = try await test.recordedTimelineWithAGap { request, _ in
            guard case .newerThan = request else { return nil }
            return Page(items: .posts("n", 5), olderCursor: "n4", newerCursor: "new:n0")
        }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: .bottom)
        let ids = await feed.snapshot.ids
        #expect(Array(ids.prefix(10)) == (0..<10).map { "n\($0)" }, "n5…n9 are still on the server")
        try await ReferenceModelTests.check(recorder, feed, test, "since_id-style bottom fill, nothing new")
    }

    /// A ranked, page-numbered list (a "hot" list): p30 dropped in rank into page 3, after new rows.
    /// The page repeats one row, preceded by rows the feed does not have: its order is not the
    /// feed's (those rows are appended below p39), so it proves nothing about p31…p39.
    @Test func aNextPageWithOneMovedRowAfterNewRowsDeletesNothing() async throws {
        let server = ModelServer(.posts("p", 60), pageSize: 20)
        let feed = try test.feed(server.pageNumberSource)
        await feed.refresh()
        await feed.loadNextPage()
        let recorder = await SnapshotRecorder(feed)
        var items = server.items
        let moved = items.remove(at: 30)
        items.insert(moved, at: 45)
        server.items = items
        await feed.loadNextPage()
        let ids = await feed.snapshot.ids
        #expect((31..<40).allSatisfy { ids.contains("p\($0)") }, "p31…p39 are still on the server")
        try await ReferenceModelTests.check(recorder, feed, test, "moved row")
    }

    /// p0 in section a, p1 and p2 in b, p3… in c: deleting p1 and p2 empties section b.
    @Test func aFillThatEmptiesASectionGivesABatchUIKitAccepts() async throws {
        var old = [Post].posts("p", 30, section: "c")
        old[0].section = "a"
        old[1].section = "b"
        old[2].section = "b"
        let (feed, server, recorder) = try await test.recordedTimelineWithAGap(old)
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        server.items.removeAll { $0.id == "p1" || $0.id == "p2" }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        #expect(await !feed.snapshot.ids.contains("p1"))
        try await ReferenceModelTests.check(recorder, feed, test, "emptied section")
    }

    /// p0 and p2 in section a, p1 in b: deleting p1 joins the two a sections into one.
    @Test func aFillThatJoinsTwoSectionsGivesABatchUIKitAccepts() async throws {
        var old = [Post].posts("p", 30, section: "a")
        old[1].section = "b"
        let (feed, server, recorder) = try await test.recordedTimelineWithAGap(old)
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        server.items.removeAll { $0.id == "p1" }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        #expect(await !feed.snapshot.ids.contains("p1"))
        try await ReferenceModelTests.check(recorder, feed, test, "joined sections")
    }

    /// The row on top of the screen is deleted by a fill; the place saved on it survives a relaunch.
    @Test func aFillThatDeletesTheAnchorRowKeepsTheReaderNearIt() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, keepsReadingPosition: true)
        let (feed, server, recorder) = try await test.recordedTimelineWithAGap(policy: policy)
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        await feed.setVisibleRows(21..<26)  // p1…p5
        try await feed.saveReadingPosition()
        server.items.removeAll { $0.id == "p1" || $0.id == "p3" }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        try await ReferenceModelTests.check(recorder, feed, test, "anchor deleted")
        let place = try #require(await feed.readingPosition)
        #expect(place.itemID != "p1")
        try await feed.saveReadingPosition()
        let reopened = try test.feed(server.source, policy: policy)
        let snapshot = await reopened.snapshot
        #expect(!snapshot.ids.contains("p1") && !snapshot.ids.contains("p3"))
        if let anchor = snapshot.anchor {
            #expect(snapshot.ids.indices.contains(anchor.rowAfter) && snapshot.ids[anchor.rowAfter] == anchor.itemID)
        }
    }

    /// A feed far bigger than its row window: a next page that deletes reloads the window, and the
    /// rows on screen (at the top, then at the bottom) are right.
    @Test func aNextPageThatDeletesInAFeedBiggerThanTheWindow() async throws {
        let server = ModelServer(.posts("p", 80), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, prefetchDistance: 0, windowSize: 8, firstScreenRows: 4)
        let feed = try test.feed(server.pageNumberSource, policy: policy)
        await feed.refresh()
        for _ in 0..<3 { await feed.loadNextPage() }
        await feed.setVisibleRows(0..<3)
        server.items = .posts("x", 6) + server.items.filter { $0.id != "p35" && $0.id != "p37" }
        let before = await feed.snapshot
        await feed.loadNextPage()
        var snapshot = await feed.snapshot
        try expectLoadedRowsMatchTheFile(snapshot, after: before)
        #expect(try test.idsOnDisk() == (0..<46).filter { $0 != 35 && $0 != 37 }.map { "p\($0)" })
        await feed.setVisibleRows(38..<42)
        // Four more on top shift page 6 back over p41…p45, and p44 is gone.
        server.items = .posts("y", 4) + server.items.filter { $0.id != "p44" }
        let before2 = await feed.snapshot
        try expectLoadedRowsMatchTheFile(before2, after: nil)
        await feed.loadNextPage()
        snapshot = await feed.snapshot
        try expectLoadedRowsMatchTheFile(snapshot, after: before2)
        #expect(try !test.idsOnDisk().contains("p44"))
    }

    func expectLoadedRowsMatchTheFile(
        _ snapshot: FeedSnapshot<Post>, after previous: FeedSnapshot<Post>?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let disk = try test.idsOnDisk()
        #expect(snapshot.rows.count == disk.count, sourceLocation: sourceLocation)
        for row in snapshot.rows.loadedRange {
            #expect(snapshot.rows.id(at: row) == disk[row], "row \(row)", sourceLocation: sourceLocation)
        }
        if let previous {
            let change = snapshot.change
            #expect(
                previous.rows.count - change.deletedRows.count + change.insertedRows.count == snapshot.rows.count,
                sourceLocation: sourceLocation)
        }
    }

    /// `flags` edited with sqlite3 to a value the engine never writes, with its bit 0 set, reads as a
    /// row the app inserted, and `verify` names the value.
    @Test func aLocalFlagEditedOutsideTheAppIsReadAsLocal() async throws {
        let (feed, server, _) = try await test.recordedTimelineWithAGap()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        try Connection(path: test.path, mode: .readWrite).execute("UPDATE item SET flags = 5 WHERE item_id = 'p1'")
        server.items.removeAll { $0.id == "p1" || $0.id == "p2" }
        let reopened = try test.feed(
            server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await reopened.loadGap(try #require(await reopened.snapshot.gaps.first))
        let ids = await reopened.snapshot.ids
        #expect(ids.contains("p1") && !ids.contains("p2"))
        #expect(try test.idsOnDisk() == ids)
        let violations = try DatabaseQueue(path: test.path).read { try $0.verify() }
        #expect(violations.map(\.rule) == ["flags"], "verify names the edited value")
        _ = feed
    }
}
