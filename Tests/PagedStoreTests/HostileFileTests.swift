import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Cache files edited behind the engine's back (as a person with `sqlite3` would): negative and
/// huge counts, positions near the ends of Int64, gaps without cursors or below the bottom, a last
/// refresh in the future. Every operation fails typed or works; none traps, loops or hangs.
@Suite(.limit(minutes: 3)) struct HostileFileTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A feed with rows n0…n9, a gap, p0…p9 (next page p9) on disk, whatever `preparing` does to
    /// it, then `sql` run on the file by another connection, as a person with `sqlite3` would.
    func hostileFeed(
        _ sql: [String], preparing: (Feed<Post>) async throws -> Void = { _ in }
    ) async throws -> (Feed<Post>, ModelServer) {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        do {
            let feed = try test.feed(server.source, policy: policy)
            await feed.refresh()
            server.items = .posts("n", 15) + server.items
            await feed.refresh()
            try await preparing(feed)
        }
        let connection = try Connection(path: test.path, mode: .readWrite)
        for statement in sql { try connection.execute(statement) }
        return (try test.feed(server.source, policy: policy), server)
    }

    /// Every operation of a feed, each followed by the state checks; nothing may trap, loop or hang.
    func everyOperation(_ feed: Feed<Post>, _ context: String) async throws {
        func check(_ step: String) async {
            await feed.waitUntilIdle()
            let snapshot = await feed.snapshot
            #expect(snapshot.rows.count >= 0, "\(context) \(step): a row count of \(snapshot.rows.count)")
            #expect(snapshot.refresh != .loading, "\(context) \(step): refresh loading with nothing in flight")
            #expect(snapshot.nextPage != .loading, "\(context) \(step): next page loading with nothing in flight")
            #expect(!snapshot.gaps.contains { $0.state == .loading }, "\(context) \(step): a gap loading")
            if snapshot.rows.count >= 0 {
                let ids = snapshot.rows.indices.compactMap { snapshot.rows.id(at: $0) }
                #expect(Set(ids).count == ids.count, "\(context) \(step): an id twice")
            }
        }
        await check("open")
        let count = max(await feed.snapshot.rows.count, 0)
        for row in [0, count / 2, count - 1, count] { await feed.rowDidAppear(row) }
        await check("rowDidAppear")
        await feed.start()
        await check("start")
        await feed.refresh()
        await check("refresh")
        await feed.loadNextPage()
        await check("loadNextPage")
        for gap in await feed.snapshot.gaps { await feed.loadGap(gap) }
        await check("loadGap")
        for (index, row) in [0, count, count / 2].enumerated() {
            do { try await feed.insert(Post(id: "local\(index)"), at: row) } catch is FeedError {}
            await check("insert at \(row)")
        }
        do { try await feed.update(Post(id: "p0", revision: 7)) } catch is FeedError {}
        await check("update")
        do { try await feed.remove(id: "n0") } catch is FeedError {}
        await check("remove")
        for limit in [Int.max, 1, 0] {
            do { try await feed.trim(maxRows: limit) } catch is FeedError {}
            await check("trim \(limit)")
        }
        await feed.retry()
        await check("retry")
        await feed.loadNextPage()
        await check("loadNextPage again")
    }

    /// A feed whose `row_count` in the file is edited to -1: the snapshot's `rows` counts 0 or more.
    /// It guarded against a `rows` of count -1 (end before start), on which `indices` and `map` trapped
    /// and a `for` loop never ended.
    @Test func aNegativeRowCountInTheFileNeverMakesANegativeCollection() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE feed SET row_count = -1"])
        #expect(await feed.snapshot.rows.count >= 0)
    }

    @Test func everyOperationOnAFileWithPositionsNearInt64MaxFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed([
            "CREATE TEMP TABLE d AS SELECT 9223372036854775807 - max(position) - 5 AS v FROM item",
            "UPDATE item SET position = position + (SELECT v FROM d)",
            "UPDATE gap SET above_position = above_position + (SELECT v FROM d)",
            "UPDATE feed SET top_position = top_position + (SELECT v FROM d), bottom_position = bottom_position + (SELECT v FROM d)",
        ])
        try await everyOperation(feed, "positions near Int64.max")
    }

    @Test func everyOperationOnAFileWithPositionsNearInt64MinFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed([
            "CREATE TEMP TABLE d AS SELECT -9223372036854775808 - min(position) + 5 AS v FROM item",
            "UPDATE item SET position = position + (SELECT v FROM d)",
            "UPDATE gap SET above_position = above_position + (SELECT v FROM d)",
            "UPDATE feed SET top_position = top_position + (SELECT v FROM d), bottom_position = bottom_position + (SELECT v FROM d)",
        ])
        try await everyOperation(feed, "positions near Int64.min")
    }

    @Test func everyOperationOnAFileWithGenerationAtInt64MaxFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE feed SET generation = 9223372036854775807"])
        try await everyOperation(feed, "generation = Int64.max")
    }

    @Test func everyOperationOnAFileWithAGapWithANullCursorFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE gap SET cursor = NULL"])
        try await everyOperation(feed, "gap cursor NULL")
    }

    @Test func everyOperationOnAFileWithAGapBelowTheBottomRowFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed([
            "UPDATE gap SET above_position = (SELECT max(position) FROM item) + 1000"
        ])
        try await everyOperation(feed, "gap below the bottom row")
    }

    @Test func everyOperationOnAFileWithASecondGapWithTheSameCursorAtTheTopFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed([
            "INSERT INTO gap (feed_id, above_position, cursor, created_at) SELECT feed_id, (SELECT min(position) FROM item) - 1, cursor, created_at FROM gap"
        ])
        try await everyOperation(feed, "two gaps, one cursor")
    }

    @Test func everyOperationOnAFileWithPagesWithNegativeRowCountsFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE page SET row_count = -5"])
        try await everyOperation(feed, "page row_count -5")
    }

    @Test func everyOperationOnAFileWithARowCountLargerThanTheRowsFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE feed SET row_count = 1000"])
        try await everyOperation(feed, "row_count 1000 for 20 rows")
    }

    @Test func everyOperationOnAFileWithMissingTopAndBottomPositionsFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed(["UPDATE feed SET top_position = NULL, bottom_position = NULL"])
        try await everyOperation(feed, "top/bottom NULL")
    }

    /// Two pages whose `row_count` in the file is near Int64.max: `trim(maxRows: .max)`, which keeps
    /// both, and `trim(maxRows: 15)`, which cuts one, each end with a result or a typed error, and the
    /// process lives on.
    /// (Summing the pages' rows is ``TrimRule``'s.)
    /// It guarded against the pages' row counts being summed with trapping `+`, which overflowed.
    @Test func aHugePageRowCountInTheFileNeverCrashesATrim() async throws {
        await #expect(processExitsWith: .success) {
            let (test, reopened) = try await Self.reopened(
                pages: 2, after: "UPDATE page SET row_count = 9223372036854775807")
            _ = try? await reopened.trim(maxRows: .max)
            _ = try? await reopened.trim(maxRows: 15)
            _ = test  // the file lives as long as the test case
        }
    }

    /// A feed whose `row_count` in the file is edited to Int64.max: a next page and a local insert end
    /// with a result or a typed error, and the process lives on.
    /// It guarded against the feed's row count growing with trapping `+`, which overflowed on the first write.
    @Test func aHugeFeedRowCountInTheFileNeverCrashesAWrite() async throws {
        await #expect(processExitsWith: .success) {
            let (test, reopened) = try await Self.reopened(
                pages: 1, after: "UPDATE feed SET row_count = 9223372036854775807")
            await reopened.loadNextPage()
            _ = try? await reopened.insert(Post(id: "x"), at: 0)
            _ = test  // the file lives as long as the test case
        }
    }

    /// A feed of `pages` pages of 10 from a 30-item server, the file then edited with `sql`, and the
    /// feed opened again on it (for exit tests, whose bodies run in a process of their own).
    static func reopened(pages: Int, after sql: String) async throws -> (FeedTestCase, Feed<Post>) {
        let test = try FeedTestCase()
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        for _ in 1..<max(pages, 1) { await feed.loadNextPage() }
        try Connection(path: test.path, mode: .readWrite).execute(sql)
        return (test, try test.feed(server.source))
    }

    /// A last refresh recorded a year in the future (the device clock was ahead, then corrected) is
    /// stale: with `refreshOnOpen: .whenOlderThan`, `start()` refreshes.
    /// It guarded against the negative age of such a refresh skipping every refresh until that moment.
    @Test func aLastRefreshInTheFutureDoesNotBlockRefreshOnOpen() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .whenOlderThan(seconds: 60))
        do { await (try test.feed(server.source, policy: policy)).refresh() }
        let connection = try Connection(path: test.path, mode: .readWrite)
        let yearAhead = Int64((Date().timeIntervalSince1970 + 365 * 86_400) * 1000)
        try connection.execute("UPDATE feed SET last_refresh_at = \(yearAhead)")
        server.items = .posts("n", 2) + server.items
        let source = server.source
        let feed = try test.feed(source, policy: policy)
        await feed.start()
        #expect(source.requests == [.first], "a cache 'refreshed' a year from now is never stale")
    }

    /// A removal's position or a gap's place above the top row edited to the lowest positions: the
    /// head is the top row, as if they were not there, and every refresh writes its new rows. The
    /// first shares nothing with the feed, so it goes on top of the head (one that overlaps
    /// rewrites the head and drops the edited gap first).
    @Test(arguments: [
        "UPDATE pending_edit SET removed_position = -9223372036854775800",
        "UPDATE gap SET above_position = -9223372036854775800",
    ])
    func placesAboveTheTopEditedToTheLowestPositionsDoNotStopRefreshes(sql: String) async throws {
        let (feed, server) = try await hostileFeed([sql]) { feed in
            _ = try #require(try await feed.enqueue("hide", removing: "n3", argument: Revision(revision: 4)))
        }
        for (round, published) in [15, 3].enumerated() {
            server.items = .posts("m\(round)_", published) + server.items
            await feed.refresh()
            let snapshot = await feed.snapshot
            #expect(snapshot.ids.first == "m\(round)_0", "round \(round): \(snapshot.ids.prefix(5))")
        }
    }
}
