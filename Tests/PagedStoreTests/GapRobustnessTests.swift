import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Gaps under odd servers and odd sequences: cursors that cycle, fill pages holding ids from above
/// and below, refreshes that reorder the rows above a gap or remove it, local rows and trims around
/// a gap at the bottom, and gaps in a version-1 file: a gap keeps its id, its rows stay fetchable,
/// and filling never loops.
@Suite(.limit(minutes: 3)) struct GapRobustnessTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A gap whose server answers cycle cursors (n9 → X → n9 …) with nothing new fails, with
    /// `paginationLoop`, in fewer than 20 fills, as a next page does (`maxPagesWithoutNewItems`): an
    /// app that fills a visible gap until it closes stops.
    /// It guarded against gaps catching only an answer with the very cursor asked, so such an app looped for ever.
    @Test func aGapWhoseCursorsCycleWithNothingNewFailsInsteadOfLoopingForever() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        do {
            let feed = try test.feed(server.source, policy: policy)
            await feed.refresh()
            server.items = .posts("n", 15) + server.items
            await feed.refresh()
        }
        let known = Array(server.items.prefix(3))  // n0…n2: rows above the gap
        let cycling = ScriptedSource<Post> { request in
            switch request {
            case .olderThan("n9"): Page(items: known, olderCursor: "X")
            case .olderThan: Page(items: known, olderCursor: "n9")
            default: server.page(for: request)
            }
        }
        let feed = try test.feed(cycling, policy: policy)
        var fills = 0
        while let gap = await feed.snapshot.gaps.first, gap.state == .idle, fills < 20 {
            await feed.loadGap(gap)
            fills += 1
        }
        #expect(fills < 20, "20 fills of a gap, none with anything new, and no failure")
        if case .failed(let error) = await feed.snapshot.gaps.first?.state {
            #expect(error.kind == .paginationLoop)
        }
    }

    /// A gap's page holding ids known above and below the gap, out of order, and one id twice: the
    /// new ids before the far side's edge go in, with the rows from below listed before it, and
    /// the change applies.
    @Test func aGapPageWithIdsFromAboveAndBelowInOddOrdersApplies() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        do {
            let feed = try test.feed(server.source, policy: policy)
            await feed.refresh()
            server.items = .posts("n", 15) + server.items
            await feed.refresh()
        }
        let odd = ScriptedSource<Post> { request in
            switch request {
            case .olderThan("n9"):
                Page(
                    items: ["n3", "n10", "n10", "n0", "n11", "p5", "n12", "p0"].map { Post(id: $0) }, olderCursor: "p0")
            default: server.page(for: request)
            }
        }
        let feed = try test.feed(odd, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        try await ReferenceModelTests.check(recorder, feed, test, "odd gap page")
        // p5, listed before p0 though cached below it, moved up: it goes in where the page lists it,
        // with n12 after it; the far side is reached at p0.
        #expect(Array(await feed.snapshot.ids[8..<15]) == ["n8", "n9", "n10", "n11", "p5", "n12", "p0"])
    }

    /// A refresh that rewrites the head right above a gap (rows reordered) leaves the gap under the
    /// same row with the same id: a gap's identity survives rows moving around it. (SQLite reuses the
    /// largest rowid, so a new id shows only when another gap in the file has a larger one: another
    /// feed records one here.)
    /// It guarded against the rewrite recording the gap anew, which threw away a fill started meanwhile.
    @Test func aGapKeepsItsIdWhenARefreshReordersTheRowsAboveIt() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        await feed.refresh()
        let before = try #require(await feed.snapshot.gaps.first)
        do {  // another feed of the file records a gap after this one's
            let otherServer = ModelServer(.posts("o", 30), pageSize: 10)
            let other = try test.feed(otherServer.source, policy: policy, key: "other")
            await other.refresh()
            otherServer.items = .posts("q", 15) + otherServer.items
            await other.refresh()
            #expect(await other.snapshot.gaps.count == 1)
        }
        var items = server.items
        items.swapAt(0, 1)  // n1, n0, n2, …: the head is rewritten, the gap stays under n9
        server.items = items
        await feed.refresh()
        let after = try #require(await feed.snapshot.gaps.first)
        #expect(after.afterRow == before.afterRow)
        #expect(after.id == before.id, "the gap got a new id")
    }

    /// Loading a gap a refresh just removed does nothing and leaves nothing loading.
    @Test func loadingAGapThatARefreshRemovedDoesNothing() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .replace)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        await feed.refresh()
        let gap = try #require(await feed.snapshot.gaps.first)
        server.items = .posts("m", 15) + server.items
        let replacing = try test.feed(server.source, policy: policy)
        let recorder = await SnapshotRecorder(replacing)
        await replacing.refresh()  // no overlap, replace: the gap is gone
        #expect(await replacing.snapshot.gaps.isEmpty)
        await replacing.loadGap(gap)
        try await ReferenceModelTests.check(recorder, replacing, test, "stale gap")
        try await scrollToTheEnd(replacing)
        #expect(await replacing.snapshot.ids == server.items.map(\.id))
    }

    /// Local rows at row 0, at rowCount and right under a gap at the very bottom, trims of 0, 1 and
    /// huge in between, then scrolling to the end: every server item once, in order.
    @Test func localRowsUnderABottomGapWithTrimsSkipNothing() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        await feed.refresh()
        for index in 0..<10 { try await feed.remove(id: "p\(index)") }  // the gap is at the bottom now
        try await ReferenceModelTests.check(recorder, feed, test, "bottom gap")
        let count = await feed.snapshot.rows.count
        try await feed.insert(Post(id: "bottom"), at: count)
        try await feed.insert(Post(id: "top"), at: 0)
        try await ReferenceModelTests.check(recorder, feed, test, "local rows")
        for limit in [Int.max, 1, 0] { try await feed.trim(maxRows: limit) }
        try await ReferenceModelTests.check(recorder, feed, test, "trims")
        try await scrollToTheEnd(feed)
        try await ReferenceModelTests.check(recorder, feed, test, "end")
        let shown = await feed.snapshot.ids.filter { $0 != "top" && $0 != "bottom" }
        let listed = server.items.map(\.id)
        #expect(shown.filter(Set(listed).contains) == listed.filter(Set(shown).contains))
        #expect(
            Set(listed).subtracting(shown).isSubset(of: Set((0..<10).map { "p\($0)" })),
            "missing: \(Set(listed).subtracting(shown).sorted())")
    }

    /// A version-1 file (gaps as pairs of rows) with a gap whose rows are gone, migrated on open:
    /// the gap keeps its place, fills, and the file verifies.
    @Test func aVersionOneFileWithGapsMigratesAndItsGapsFill() async throws {
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Migrations/0001_create_feed_store.sql").standardized
        let schema = try String(contentsOf: migrations, encoding: .utf8)
        let connection = try Connection(path: test.path, mode: .readWrite)
        try connection.execute(schema)
        try connection.execute("PRAGMA user_version = 1")
        var inserts = [
            "INSERT INTO feed (id, key, oldest_cursor, row_count, top_position, bottom_position, loaded, generation) VALUES (1, 'home', 'p9', 20, -10000, 9000, 1, 2)",
            "INSERT INTO page VALUES (1, -1, 'first', NULL, 'n9', NULL, 0, 10)",
            "INSERT INTO page VALUES (1, 0, 'first', NULL, 'p9', NULL, 0, 10)",
            "INSERT INTO gap VALUES (1, -1000, 0, 'n9', 0)",
            "INSERT INTO gap VALUES (1, 500, 600, NULL, 0)",
        ]
        for index in 0..<10 {
            inserts.append(
                "INSERT INTO item VALUES (1, 'n\(index)', \(-10000 + index * 1000), -1, NULL, '{\"id\":\"n\(index)\",\"revision\":0}')"
            )
            inserts.append(
                "INSERT INTO item VALUES (1, 'p\(index)', \(index * 1000), 0, NULL, '{\"id\":\"p\(index)\",\"revision\":0}')"
            )
        }
        for statement in inserts { try connection.execute(statement) }
        let server = ModelServer(.posts("n", 15) + .posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        let gaps = await feed.snapshot.gaps
        #expect(gaps.map(\.afterRow) == [9, 10])
        for gap in gaps { await feed.loadGap(gap) }
        try await ReferenceModelTests.check(recorder, feed, test, "migrated")
        #expect(Array(await feed.snapshot.ids.prefix(16)) == (0..<15).map { "n\($0)" } + ["p0"])
    }
}
