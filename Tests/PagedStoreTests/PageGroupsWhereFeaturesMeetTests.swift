import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Page groups where the store's features meet, deep in a feed: trims, budget cuts, gap fills,
/// optimistic edits and their rollbacks, undecodable rows removed, shared copies: every row index
/// stays the count of the rows above it, the groups their pages' sums, and verify clean.
@Suite(.limit(minutes: 3), .plainRunOnly) struct PageGroupsWhereFeaturesMeetTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// In a write, every row's index is its count of rows above; groups are their pages' sums;
    /// verify is clean.
    func expectTrueIndexes(
        _ context: String, key: String = "home", sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let problems = try DatabaseQueue(path: test.path).rowIndexProblems(ofFeed: key)
        #expect(problems.isEmpty, "\(context): \(problems)", sourceLocation: sourceLocation)
    }

    func makeGroups(key: String = "home") throws {
        try DatabaseQueue(path: test.path).write { store in
            let feed = try #require(try store.feed(key: key))
            try store.makePageGroups(of: feed.id)
        }
    }

    /// A feed of `rows` posts in pages of `pageSize`, loaded whole, with groups.
    func deepFeed(rows: Int = 600, pageSize: Int = 4) async throws -> (ModelServer, Feed<Post>) {
        let server = ModelServer(.posts("p", rows), pageSize: pageSize)
        let app = try test.feed(server.source)
        await app.refresh()
        for _ in 0..<(rows / pageSize + 2) where await app.snapshot.rows.count < rows { await app.loadNextPage() }
        #expect(await app.snapshot.rows.count == rows)
        try makeGroups()
        return (server, app)
    }

    @Test func aTrimByMaxRowsOfADeepFeedKeepsTrueIndexes() async throws {
        let (_, app) = try await deepFeed()
        _ = try await app.trim(maxRows: 401)
        try expectTrueIndexes("trim")
    }

    @Test func aBudgetCutOfTheLargestFeedKeepsTrueIndexes() async throws {
        let (_, app) = try await deepFeed(rows: 800, pageSize: 4)
        let small = try test.feed(ModelServer(.posts("s", 5), pageSize: 5).source, key: "small")
        await small.refresh()
        _ = app
        let used = try DatabaseQueue(path: test.path).read { try $0.fileSpace().usedBytes }
        let budgeted = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: used * 3 / 4))
        let done = try budgeted.keepWithinBudget()
        #expect(done.contains { $0.kind == .trimmed }, "\(done)")
        try expectTrueIndexes("budget")
    }

    @Test func aDeepGapFillKeepsTrueIndexes() throws {
        let queue = try DatabaseQueue(path: test.path)
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try RowIndexByPagesTests.appendPages(300, named: "o", rows: { _ in 2 }, to: &feed, in: store)
            try store.makePageGroups(of: feed.id)
            let rows = try store.window(of: feed, from: .top, limit: Int.max)
            let above = rows[451].position
            let gap = try store.addGap(at: above, cursor: "g", in: feed)
            _ = try store.insertRows(Fixtures.items("fill", count: 5), offsets: Array(0..<5), below: above, in: &feed)
            try store.removeGap(id: gap, in: feed)
        }
        try expectTrueIndexes("gap fill")
    }

    struct Refused: Error {}

    @Test func optimisticEditsDeepInAFeedAndTheirRollbacksKeepTrueIndexes() async throws {
        let (_, app) = try await deepFeed()
        try await app.insert(Post(id: "opt"), at: 450) { _ in }
        await #expect(throws: (any Error).self) {
            try await app.insert(Post(id: "bad"), at: 500) { _ in throw Refused() }
        }
        _ = try? await app.remove(id: "p520") { _ in throw Refused() }
        _ = try await app.remove(id: "p530") { _ in }
        try expectTrueIndexes("optimistic")
        #expect(try test.idsOnDisk().firstIndex(of: "p520") == 521, "the rollback put p520 back in its row")
    }

    @Test func anUndecodableRowRemovedDeepInAFeedKeepsTrueIndexes() async throws {
        let (server, app) = try await deepFeed()
        _ = app
        try ForeignWriter.execute(
            "UPDATE item SET payload = '{\"broken' WHERE item_id IN ('p450', 'p451', 'p300')", on: test.path)
        let reader = try test.feed(server.source, key: "home")
        await reader.rowDidAppear(450)
        for _ in 0..<50 where try test.idsOnDisk().contains("p450") { await reader.rowDidAppear(450) }
        _ = try await reader.update(Post(id: "p10", revision: 1))
        #expect(try !test.idsOnDisk().contains("p450"))
        try expectTrueIndexes("undecodable")
    }

    @Test func aSharedCopySpreadIntoADeepFeedIsToldAtItsRow() async throws {
        let store = try test.store()
        let policy = FeedPolicy(refreshOnOpen: .never)
        let big = ScriptedSource<SharedPost> { request in
            let start = Int(request.cursor ?? "0") ?? 0
            let posts = (start..<(start + 2)).map { SharedPost(id: "p\($0)") }
            return Page(items: posts, olderCursor: start + 2 < 600 ? "\(start + 2)" : nil)
        }
        let deep = try store.feed("home", source: big, policy: policy)
        await deep.refresh()
        for _ in 0..<310 where await deep.snapshot.rows.count < 600 { await deep.loadNextPage() }
        #expect(await deep.snapshot.rows.count == 600)
        try makeGroups()
        let other = try store.feed(
            "other",
            source: ScriptedSource<SharedPost> { _ in
                Page(items: [SharedPost(id: "p450")], olderCursor: nil)
            }, policy: policy)
        await other.refresh()
        await deep.rowDidAppear(450)
        let recorder = await SnapshotRecorder(deep)
        #expect(try await other.update(SharedPost(id: "p450", revision: 7)))
        for await snapshot in await deep.snapshots where snapshot.rows[450]?.revision == 7 { break }
        let last = await recorder.snapshots(settlingOn: deep).last
        #expect(last?.change.reloadedRows == [IndexPath(indexes: [0, 450])], "\(String(describing: last?.change))")
        try expectTrueIndexes("shared")
    }

    @Test func optimisticRemovalsOfOneRowPagesDeepInAFeedAndTheirRollbacksKeepTrueIndexes() async throws {
        let (_, app) = try await deepFeed(rows: 320, pageSize: 1)
        _ = try? await app.remove(id: "p300") { _ in throw Refused() }
        _ = try await app.remove(id: "p301") { _ in }
        await #expect(throws: Refused.self) { try await app.insert(Post(id: "x"), at: 290) { _ in throw Refused() } }
        try expectTrueIndexes("one-row pages")
        #expect(try test.idsOnDisk().firstIndex(of: "p300") == 300)
    }
}
