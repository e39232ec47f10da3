import Foundation
import Testing

@testable import PagedStore

/// Hostile tests of the issue-10 integrity work: sequences the reference model does not generate,
/// two stores on one file, and cache files edited behind the engine's back. Each test names the
/// behaviour it expects and fails on the code as it was attacked.
@Suite struct AttackTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    // MARK: - Server items moving up

    /// Found: a refresh whose page holds a row "bumped" from the second page to the top (a thread
    /// with a new reply) rewrites the head through the bumped row's old place and deletes every row
    /// between the page's end and that place (p9…p14), though the server still lists them; the older
    /// cursor stays below them, so scrolling to the end never fetches them (Rule 3: only rows the
    /// server no longer lists *within the overlap* are deletions). RefreshMerge.plan `.rewrite`.
    @Test func aRowBumpedToTheTopFromTheSecondPageSkipsNoServerItem() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.loadNextPage()
        #expect(await feed.snapshot.ids.count == 20)
        var items = server.items
        let bumped = items.remove(at: 15)
        server.items = [bumped] + items
        let before = await feed.snapshot
        await feed.refresh()
        let after = await feed.snapshot
        #expect(try ChangeApplier.apply(after.change, to: before.ids, new: after.ids) == after.ids)
        try await scrollToTheEnd(feed)
        let shown = await feed.snapshot.ids
        #expect(shown == server.items.map(\.id), "every server item, once, in order")
    }

    /// Found: the same rewrite across a gap. A row from below a keepGap gap moves to the top; the
    /// rewrite deletes the gap with the head, so the rows the gap stood for are never fetched.
    @Test func aRowBumpedFromBelowAGapKeepsTheGapsRowsFetchable() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        await feed.refresh()
        #expect(await feed.snapshot.gaps.count == 1)
        var items = server.items
        let bumped = items.remove(at: items.firstIndex { $0.id == "p0" }!)
        server.items = [bumped] + items
        await feed.refresh()
        try await scrollToTheEnd(feed)
        let shown = await feed.snapshot.ids
        #expect(shown == server.items.map(\.id), "n9…n14 were skipped with the gap")
    }

    // MARK: - Two stores (processes) on one file

    /// Found: when another store (an app extension, a second process) loads the feed's next page,
    /// this feed's next page is `superseded` (its cursor no longer matches the file) but its record is
    /// never read again, so every later next page asks with the same stale cursor and is superseded
    /// too: the feed never reaches the end. Feed+NextPage.swift commitNextPage `.superseded`.
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

    /// Found: a local edit commits a change computed on the file's rows, and the feed applies it to
    /// the rows it holds in memory. When another store changed the feed meanwhile (here: removed one
    /// row and inserted one, so the count is unchanged), the change is a plain reload that does not
    /// turn the previous snapshot into the new one. Feed+Edits.swift edit / Feed+Commit.swift apply.
    @Test func aLocalEditsChangeAppliesAfterAnotherStoreEditedTheFeed() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mine = try test.feed(server.source)
        await mine.refresh()
        let other = try test.feed(server.source)
        try await other.remove(id: "p3")
        try await other.insert(Post(id: "x"), at: 0)
        let before = await mine.snapshot
        try await mine.update(Post(id: "p5", revision: 1))
        let after = await mine.snapshot
        #expect(after.ids == (try test.idsOnDisk()))
        #expect(try ChangeApplier.apply(after.change, to: before.ids, new: after.ids) == after.ids)
    }

    // MARK: - Hostile files

    /// A feed with rows n0…n9, a gap, p0…p9 (next page p9) on disk, then `sql` run on the file by
    /// another connection, as a person with `sqlite3` would.
    func hostileFeed(_ sql: [String]) async throws -> (Feed<Post>, ModelServer) {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        do {
            let feed = try test.feed(server.source, policy: policy)
            await feed.refresh()
            server.items = .posts("n", 15) + server.items
            await feed.refresh()
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

    /// Found: `row_count` is trusted from the file. Edited to -1, the snapshot's `rows` is a
    /// collection of count -1 (endIndex < startIndex): `rows.indices`/`map` trap and a `for` loop
    /// never ends. FeedSnapshot.rows from FeedRecord.rowCount (Feed.swift snapshot(record:…)).
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
        let (feed, _) = try await hostileFeed(["UPDATE gap SET above_position = (SELECT max(position) FROM item) + 1000"])
        try await everyOperation(feed, "gap below the bottom row")
    }

    @Test func everyOperationOnAFileWithASecondGapWithTheSameCursorAtTheTopFailsTypedNeverTraps() async throws {
        let (feed, _) = try await hostileFeed(["INSERT INTO gap (feed_id, above_position, cursor, created_at) SELECT feed_id, (SELECT min(position) FROM item) - 1, cursor, created_at FROM gap"])
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

    // MARK: - Helpers

    func scrollToTheEnd(_ feed: Feed<Post>) async throws {
        for _ in 0..<100 {
            let snapshot = await feed.snapshot
            if let gap = snapshot.gaps.first {
                await feed.loadGap(gap)
                continue
            }
            if snapshot.nextPage == .endReached { return }
            await feed.loadNextPage()
            if case .failed(let error) = await feed.snapshot.nextPage {
                Issue.record("next page failed: \(error)")
                return
            }
        }
    }
}
