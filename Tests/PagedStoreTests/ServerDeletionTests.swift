import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Server deletions inside a stretch a page lists without holes (a filled gap, a next page that
/// repeats rows): the cached rows the page skips are deleted, with their index paths, while rows the
/// app inserted stay, and a page cannot prove more deletions than it has items.
@Suite(.limit(minutes: 3)) struct ServerDeletionTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    func deleteOnServer(_ ids: Set<String>, _ server: ModelServer) {
        server.items.removeAll { ids.contains($0.id) }
    }

    @Test func rowsBelowAGapThatAFillFromTheTopSkipsAreDeleted() async throws {
        let (feed, server, recorder) = try await test.recordedTimelineWithAGap()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))  // n10…n19
        deleteOnServer(["p1", "p3"], server)
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))  // n20…n24, p0, p2, p4, p5, p6
        let snapshot = await feed.snapshot
        #expect(snapshot.gaps.isEmpty)
        #expect(snapshot.ids == server.items.prefix(33).map(\.id))
        #expect(snapshot.change.deletedRows == [21, 23].map { IndexPath(section: 0, row: $0) }, "p1, p3")
        #expect(snapshot.change.insertedRows == (20..<25).map { IndexPath(section: 0, row: $0) })
        #expect(try test.idsOnDisk() == snapshot.ids)
        try await ReferenceModelTests.check(recorder, feed, test, "top fill")
    }

    /// A refreshed first page that lists a row the feed lacks right below the rows it shares puts it
    /// there, above a gap (a ranked list may have put a new post there, and more below it). When the
    /// older gap's fill, asked from right below the deleted post above it, then lists that row first,
    /// the page goes on from it: the post between them is gone.
    @Test func rowsBetweenTheRowsAFillListsFirstAndItsGapAreDeleted() async throws {
        let server = TimelineModel(count: 7, pageSize: 3, byPageNumber: false, sectioned: false)
        let feed = try test.feed(
            ScriptedSource { server.page(for: $0) }, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()  // s1007…s1005
        server.publish(9)
        await feed.refresh()  // s1016…s1014, a gap, s1007…s1005
        server.delete(["s1014"])
        await feed.refresh()  // s1016, s1015, s1013, a gap, s1014, the older gap
        #expect(await feed.snapshot.ids.prefix(4) == ["s1016", "s1015", "s1013", "s1014"])
        #expect(await feed.snapshot.gaps.map(\.afterRow) == [2, 3])
        let recorder = await SnapshotRecorder(feed)
        await feed.loadGap(try #require(await feed.snapshot.gaps.last))  // older than s1014: s1013…s1011
        let snapshot = await feed.snapshot
        #expect(snapshot.ids.prefix(5) == ["s1016", "s1015", "s1013", "s1012", "s1011"])
        #expect(snapshot.change.deletedRows == [IndexPath(section: 0, row: 3)], "s1014")
        #expect(snapshot.change.insertedRows == (3..<5).map { IndexPath(section: 0, row: $0) }, "s1012, s1011")
        try await ReferenceModelTests.check(recorder, feed, test, "fill from a repeated row")
    }

    @Test func rowsAboveAGapThatAFillFromTheBottomSkipsAreDeleted() async throws {
        let (feed, server, recorder) = try await test.recordedTimelineWithAGap()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: .bottom)  // n15…n24
        deleteOnServer(["n7", "n9"], server)
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: .bottom)  // n3…n6, n8, n10…n14
        let snapshot = await feed.snapshot
        #expect(snapshot.gaps.isEmpty)
        #expect(snapshot.ids == server.items.prefix(33).map(\.id))
        #expect(snapshot.change.deletedRows == [7, 9].map { IndexPath(section: 0, row: $0) }, "n7, n9")
        #expect(snapshot.change.insertedRows == (8..<13).map { IndexPath(section: 0, row: $0) }, "n10…n14")
        try await ReferenceModelTests.check(recorder, feed, test, "bottom fill")
    }

    /// p0…p39 on a server paged by page number, with pages 1 and 2 (p0…p19) cached.
    func feedWithTwoPages() async throws -> (Feed<Post>, ModelServer) {
        let server = ModelServer(.posts("p", 40), pageSize: 10)
        let feed = try test.feed(server.pageNumberSource)
        await feed.refresh()
        await feed.loadNextPage()
        return (feed, server)
    }

    @Test func aNextPageThatRepeatsRowsDeletesTheRowsItSkips() async throws {
        let (feed, server) = try await feedWithTwoPages()
        let recorder = await SnapshotRecorder(feed)
        // Six new posts push page 3 back over p14…p19, and p15 is gone.
        server.items = .posts("x", 6) + server.items.filter { $0.id != "p15" }
        await feed.loadNextPage()  // p14, p16…p24
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == (0..<25).filter { $0 != 15 }.map { "p\($0)" })
        #expect(snapshot.change.deletedRows == [IndexPath(section: 0, row: 15)])
        #expect(snapshot.change.insertedRows == (19..<24).map { IndexPath(section: 0, row: $0) })
        try await ReferenceModelTests.check(recorder, feed, test, "next page")
    }

    @Test func aNextPageThatEndsOnRepeatedRowsSaysNothingOfTheRowsBelowThem() async throws {
        let (feed, server) = try await feedWithTwoPages()
        // Twelve new posts, and p15 is gone: page 3 is p8…p14, p16…p18, all rows the feed has. It
        // proves p15 deleted, and nothing of p19, which would come after its last row.
        server.items = .posts("x", 12) + server.items.filter { $0.id != "p15" }
        await feed.loadNextPage()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == (0..<20).filter { $0 != 15 }.map { "p\($0)" })
        #expect(snapshot.change.deletedRows == [IndexPath(section: 0, row: 15)])
    }

    @Test func rowsTheAppInsertedAreNeverDeletedByAPageThatSkipsThem() async throws {
        let (feed, server, recorder) = try await test.recordedTimelineWithAGap()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))  // n10…n19
        try await feed.insert(Post(id: "mine"), at: 22)  // between p1 and p2
        try await feed.insert(Post(id: "posting"), at: 24, commit: { _ in })
        deleteOnServer(["p1"], server)
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        let snapshot = await feed.snapshot
        #expect(!snapshot.ids.contains("p1"))
        #expect(snapshot.ids.contains("mine") && snapshot.ids.contains("posting"))
        try await ReferenceModelTests.check(recorder, feed, test, "local rows")
    }

    @Test func aPostTheAppInsertedIsAServerRowOnceAPageListsIt() async throws {
        let (feed, server) = try await feedWithTwoPages()  // p0…p19
        try await feed.insert(Post(id: "mine"), at: 17, commit: { _ in })
        // Published: the server has it at the same place, and six new posts push page 3 back over it.
        var items = server.items
        items.insert(Post(id: "mine"), at: 17)
        server.items = .posts("x", 6) + items
        await feed.loadNextPage()  // p14…p16, mine, p17…p22
        #expect(
            await feed.snapshot.ids.prefix(24)
                == ArraySlice((0..<17).map { "p\($0)" } + ["mine"] + (17..<23).map { "p\($0)" }))
        // Deleted on the server later: the next page that lists the rows around it removes it.
        server.items = .posts("y", 10) + server.items.filter { $0.id != "mine" }
        await feed.loadNextPage()
        let snapshot = await feed.snapshot
        #expect(!snapshot.ids.contains("mine"))
        #expect(snapshot.change.deletedRows == [IndexPath(section: 0, row: 17)])
    }

    @Test func aPageCannotProveMoreDeletionsThanItHasItems() async throws {
        // A page of two that jumps to p9: an item that moved, or a server that lies.
        let feed = try await test.timelineWithAGap { request, _ in
            guard case .olderThan("n9") = request else { return nil }
            return Page(items: [Post(id: "n10"), Post(id: "p9")], olderCursor: "p9")
        }.feed
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        let snapshot = await feed.snapshot
        let old = snapshot.ids.filter { $0.hasPrefix("p") }
        #expect(old == ["p9"] + (0..<9).map { "p\($0)" }, "none is shown deleted; p9 goes where the page lists it")
        #expect(snapshot.ids.prefix(12) == ArraySlice((0..<11).map { "n\($0)" } + ["p9"]))
        #expect(snapshot.gaps.map(\.afterRow) == [11], "the page did not show that it reached p0")
    }

    @Test func aPageWhoseKnownRowsAreOutOfTheFeedsOrderProvesNothing() async throws {
        let feed = try await test.timelineWithAGap { request, _ in
            guard case .newerThan = request else { return nil }
            return Page(
                items: [Post(id: "n5"), Post(id: "n2")] + Array([Post].posts("n", 25).suffix(15)), olderCursor: nil)
        }.feed
        await feed.loadGap(try #require(await feed.snapshot.gaps.first), from: .bottom)
        #expect(await feed.snapshot.ids.prefix(10) == ArraySlice((0..<10).map { "n\($0)" }))
    }
}
