import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Architecture rule 3: proper pull-to-refresh, with the insertion index paths, reloads and gap policies.
@Suite(.limit(minutes: 3)) struct PullToRefreshTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    func loadedFeed(
        _ server: ModelServer, policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never)
    ) async throws
        -> Feed<Post>
    {
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        return feed
    }

    @Test func refreshInsertsNewItemsAboveTheOverlap() async throws {
        let server = ModelServer(.posts("old", 30), pageSize: 10)
        let feed = try await loadedFeed(server)
        await feed.loadNextPage()
        server.items = .posts("new", 4) + server.items
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.change.insertedRows == (0..<4).map { IndexPath(indexes: [0, $0]) })
        #expect(snapshot.change.deletedRows.isEmpty)
        #expect(snapshot.change.reloadedRows.isEmpty)
        #expect(snapshot.ids == (0..<4).map { "new\($0)" } + (0..<20).map { "old\($0)" })
        #expect(try test.idsOnDisk() == snapshot.ids)
        #expect(try test.recordOnDisk()?.oldestCursor == "old19", "the bottom cursor stays where it was")
    }

    @Test func changedItemsOfTheOverlapAreReloadsAndMissingOnesDeletions() async throws {
        let server = ModelServer(.posts("p", 10), pageSize: 10)
        let feed = try await loadedFeed(server)
        var items = server.items
        items[2].revision = 1
        items.remove(at: 5)
        server.items = [Post(id: "n0")] + items
        await feed.refresh()
        let snapshot = await feed.snapshot
        let change = snapshot.change
        let old = (0..<10).map { "p\($0)" }
        #expect(try BatchUpdate.apply(change, to: old, new: snapshot.ids) == snapshot.ids)
        #expect(change.deletedRows.map { $0[1] } == [5])
        #expect(change.insertedRows.map { $0[1] } == [0])
        #expect(change.reloadedRows.map { $0[1] } == [2])
        #expect(snapshot.rows[3]?.revision == 1)
    }

    /// p0…p59 read to the end; the server deletes p0…p14, more than a page, and puts `newOnTop` new
    /// posts on top. The page lists p15… as they are cached: p0…p14 are deletions, with either gap
    /// policy, and reading on shows the server's list.
    @Test(arguments: [FeedPolicy.GapPolicy.keepGap, .replace], [0, 3])
    func moreDeletionsAtTheTopThanAPageHoldsAreDeletions(gapPolicy: FeedPolicy.GapPolicy, newOnTop: Int) async throws {
        let server = ModelServer(.posts("p", 60), pageSize: 10)
        let feed = try await loadedFeed(server, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: gapPolicy))
        try await scrollToTheEnd(feed)
        server.items = .posts("n", newOnTop) + Array(server.items.dropFirst(15))
        await feed.refresh()
        let refreshed = await feed.snapshot
        #expect(refreshed.gaps.isEmpty && refreshed.ids.count == 45 + newOnTop, "\(refreshed.ids)")
        try await scrollToTheEnd(feed)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    @Test func reorderedItemsAreMoves() async throws {
        let server = ModelServer(.posts("p", 6), pageSize: 10)
        let feed = try await loadedFeed(server)
        var items = server.items
        items.swapAt(1, 4)
        server.items = items
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == ["p0", "p4", "p2", "p3", "p1", "p5"])
        #expect(!snapshot.change.movedRows.isEmpty)
        #expect(
            try BatchUpdate.apply(snapshot.change, to: (0..<6).map { "p\($0)" }, new: snapshot.ids) == snapshot.ids)
    }

    @Test func withoutOverlapReplaceStartsAgainAsAFullReload() async throws {
        let server = ModelServer(.posts("old", 20), pageSize: 10)
        let feed = try await loadedFeed(server)
        await feed.loadNextPage()
        server.items = .posts("new", 25) + server.items
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.change.isFullReload)
        #expect(snapshot.ids == (0..<10).map { "new\($0)" })
        #expect(try test.recordOnDisk()?.oldestCursor == "new9")
        #expect(snapshot.gaps.isEmpty)
    }

    @Test func withoutOverlapKeepGapKeepsTheOldRowsUnderAPersistedGap() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let server = ModelServer(.posts("old", 20), pageSize: 10)
        let feed = try await loadedFeed(server, policy: policy)
        server.items = .posts("new", 15) + server.items
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.change.insertedRows.map { $0[1] } == Array(0..<10))
        #expect(snapshot.ids == (0..<10).map { "new\($0)" } + (0..<10).map { "old\($0)" })
        #expect(snapshot.gaps.map(\.afterRow) == [9])

        let relaunched = try test.feed(server.source, policy: policy)
        let reopened = await relaunched.snapshot
        #expect(reopened.gaps.map(\.afterRow) == [9], "the gap survives a relaunch")

        await relaunched.loadGap(try #require(reopened.gaps.first))
        let filled = await relaunched.snapshot
        #expect(filled.ids == (0..<15).map { "new\($0)" } + (0..<10).map { "old\($0)" })
        #expect(filled.change.insertedRows.map { $0[1] } == Array(10..<15))
        #expect(filled.gaps.isEmpty, "the page reached the cached rows, so the gap closed")
        #expect(try test.idsOnDisk() == filled.ids)
    }

    @Test func keepGapMovesIdsFoundOnlyDeepDownToTheTopNamingTheirPreviousRows() async throws {
        // 150 cached rows; the refresh shares ids only with rows 110 and 140, far below the head the
        // merge reads for a 10-item page: no proof of overlap, so keepGap applies.
        try DatabaseQueue(path: test.path).write { store in
            var record = try store.ensureFeed(key: "home")
            let items = (0..<150).map { index -> EncodedItem in
                let post = Post(id: "old\(index)")
                return EncodedItem(itemID: post.id, payload: (try? ItemCodec<Post>.json.encode(post)) ?? Data())
            }
            try store.appendPage(
                items, page: PageWrite(request: .older, requestCursor: nil, olderCursor: "old149", newerCursor: nil),
                to: &record)
            record.loaded = true
            try store.save(&record)
        }
        let page = Page(items: .posts("new", 8) + [Post(id: "old110"), Post(id: "old140")], olderCursor: "old140")
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 1000, firstScreenRows: 1000)
        let feed = try test.feed(ScriptedSource { _ in page }, policy: policy)
        let before = await feed.snapshot.ids
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.change.deletedRows.map { $0[1] } == [110, 140], "rows of the previous snapshot")
        #expect(snapshot.change.insertedRows.map { $0[1] } == Array(0..<10))
        #expect(try BatchUpdate.apply(snapshot.change, to: before, new: snapshot.ids) == snapshot.ids)
        #expect(Set(snapshot.ids).count == snapshot.ids.count, "no id twice")
        #expect(snapshot.gaps.map(\.afterRow) == [9])
        #expect(try test.idsOnDisk() == snapshot.ids)
    }

    @Test func aFirstLoadIntoAnEmptyFeedIsInsertions() async throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let feed = try test.feed(server.source)
        #expect(await feed.snapshot.content == .initialLoading)
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.content == .content)
        #expect(snapshot.change.insertedRows.map { $0[1] } == Array(0..<5))
        #expect(snapshot.nextPage == .endReached)
    }

    @Test func anEmptyServerListLoadsAsEmpty() async throws {
        let feed = try test.feed(ModelServer([], pageSize: 10).source)
        await feed.refresh()
        #expect(await feed.snapshot.content == .empty)
    }
}
