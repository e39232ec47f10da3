import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A store with a budget, on a real file: it evicts the feeds opened longest ago, never an open
/// list's loaded rows or a pending edit, and the file itself shrinks on disk.
@Suite(.limit(minutes: 15)) struct StoreBudgetTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A post of about a kilobyte, so that sizes add up quickly.
    struct Article: FeedItem, Codable, Equatable {
        let id: String
        var body = String(repeating: "a", count: 1_000)
        var revision = 0
    }

    /// A server with `count` articles for every feed key, served `pageSize` at a time.
    static func source(_ key: String, count: Int = 200, pageSize: Int = 20) -> ScriptedSource<Article> {
        let articles = (0..<count).map { Article(id: "\(key)-\($0)") }
        return ScriptedSource { request in
            var start = 0
            if case .olderThan(let cursor) = request {
                start = (articles.firstIndex { $0.id == cursor }).map { $0 + 1 } ?? articles.count
            }
            let page = Array(articles[start..<min(start + pageSize, articles.count)])
            return Page(items: page, olderCursor: start + pageSize < articles.count ? page.last?.id : nil)
        }
    }

    func open(_ key: String, in store: FeedStore) throws -> Feed<Article> {
        try store.feed(key, source: Self.source(key), policy: FeedPolicy(refreshOnOpen: .never, windowSize: 40))
    }

    /// Writes `pages` pages of 20 articles into each feed, with a store without a budget, and
    /// records that feed n was last opened n hours ago.
    func fill(_ keys: [String], pages: Int = 5) async throws {
        let store = try test.store()
        for key in keys {
            let feed = try open(key, in: store)
            await feed.refresh()
            for _ in 1..<pages { await feed.loadNextPage() }
        }
        try DatabaseQueue(path: test.path).write { store in
            for (hours, key) in keys.enumerated() {
                guard let feed = try store.feed(key: key) else { continue }
                try store.recordOpened(feed, at: Date() - TimeInterval(hours * 3_600))
            }
        }
        store.close()
    }

    /// The rows the list holds loaded.
    func loaded(_ feed: Feed<Article>) async -> [String] {
        await feed.snapshot.ids.filter { $0 != "<not loaded>" }
    }

    func rows(_ key: String) throws -> Int { try test.recordOnDisk(key: key)?.rowCount ?? 0 }

    func fileSize() throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: test.path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    @Test func theFeedsOpenedLongestAgoAreEvictedFirst() async throws {
        let keys = (0..<6).map { "feed\($0)" }  // feed5 was opened longest ago
        try await fill(keys)
        let store = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: 500_000))
        let done = try store.keepWithinBudget()
        let evicted = done.filter { $0.kind == .evictedOverBudget }.compactMap(\.feedKey)
        #expect(evicted == Array(keys.reversed().prefix(evicted.count)), "in order of last open, oldest first")
        #expect(!evicted.isEmpty)
        #expect(try rows("feed0") == 100, "the feed opened last keeps every row")
        for key in evicted { #expect(try rows(key) == 0) }
        #expect(try DatabaseQueue(path: test.path).read { try $0.fileSpace().usedBytes } <= 500_000)
    }

    @Test func theFileShrinksOnDisk() async throws {
        try await fill((0..<6).map { "feed\($0)" })
        let before = try fileSize()
        let store = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: 300_000))
        let done = try store.keepWithinBudget()
        let after = try fileSize()
        #expect(before > 500_000)
        #expect(after <= 330_000, "the file on disk, measured with stat: \(before) → \(after) bytes")
        #expect(done.contains { $0.kind == .shrunk })
        #expect(try DatabaseQueue(path: test.path).read { try $0.fileSpace().isIncremental }, "converted once")
    }

    /// The size of the file's log (`-wal`) on disk, 0 when there is none.
    func logSize() -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: test.path + "-wal")
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// A shrink empties the log file on disk too, but only once no other connection reads it: a
    /// reader holding a snapshot meanwhile keeps reading its rows, and nothing waits for it.
    @Test func theLogFileShrinksOnDiskOnceNoReaderHoldsIt() async throws {
        try await fill((0..<6).map { "feed\($0)" })
        let reader = try PageStore(path: test.path)
        try reader.connection.execute("BEGIN")
        let count = "SELECT count(*) FROM item"
        let rowsSeen = try reader.connection.int64(count)

        let store = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: 300_000))
        try store.keepWithinBudget()
        let held = logSize()
        #expect(held > 100_000, "the reader's snapshot keeps the log: \(held) bytes")
        #expect(try reader.connection.int64(count) == rowsSeen, "the reader's snapshot is intact")
        #expect(try reader.verify().isEmpty, "the reader reads its snapshot whole")
        try reader.connection.execute("COMMIT")

        // Another shrink, with free pages to give back, once the reader is done: a feed written
        // and then emptied by another connection.
        let feed = try open("fresh", in: store)
        await feed.refresh()
        for _ in 0..<3 { await feed.loadNextPage() }
        try DatabaseQueue(path: test.path).write { store in
            guard var feed = try store.feed(key: "fresh") else { return }
            try store.clearFeed(&feed)
        }
        let done = try store.keepWithinBudget()
        #expect(done.contains { $0.kind == .shrunk })
        #expect(logSize() < held / 10, "the log file on disk, measured with stat: \(held) → \(logSize()) bytes")
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    @Test func onlyAStoreWithABudgetCreatesAnIncrementalFile() throws {
        _ = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: 1_000_000))
        #expect(try DatabaseQueue(path: test.path).read { try $0.fileSpace().isIncremental })
        let other = test.directory.path("other.sqlite")
        _ = try FeedStore(path: other)
        #expect(try DatabaseQueue(path: other).read { try $0.fileSpace().isIncremental } == false)
    }

    @Test func anOpenListsLoadedRowsAndPendingEditsAreNeverTouched() async throws {
        let keys = (0..<4).map { "feed\($0)" }
        try await fill(keys)
        // feed3, opened longest ago, has an edit waiting for its server call; feed2 is open.
        let base = try test.recordOnDisk(key: "feed3")
        try DatabaseQueue(path: test.path).write { store in
            guard let feed = try store.feed(key: "feed3") else { return }
            let row = try store.window(of: feed, from: .row(70), limit: 1)
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: row.first?.itemID ?? "", kind: .update, base: row.first?.payload, baseSection: nil,
                    edited: row.first?.payload, createdAt: Date()),
                in: feed)
        }
        let store = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: 1))
        let open = try open("feed2", in: store)
        let shown = await loaded(open)
        let events = store.evictions
        try store.keepWithinBudget()
        #expect(await loaded(open) == shown, "the open list's rows")
        #expect(try rows("feed2") >= shown.count)
        #expect(try rows("feed3") >= 71, "down to the edited row, by whole pages")
        #expect(try rows("feed0") == 0 && rows("feed1") == 0, "the others are evicted")
        #expect(try test.recordOnDisk(key: "feed3")?.rowCount ?? 0 < base?.rowCount ?? 0, "trimmed below the edit")
        let pending = try DatabaseQueue(path: test.path).read { store in
            try store.feed(key: "feed3").map { try store.pendingEdits(of: $0).count }
        }
        #expect(pending == 1)
        var reported: [StoreEviction] = []
        for await eviction in events {
            reported.append(eviction)
            if eviction.kind == .shrunk { break }
        }
        #expect(reported.contains { $0.kind == .evictedOverBudget && $0.feedKey == "feed0" })
    }

    @Test func anOpenListFollowsATrimOfItsFeedExactly() async throws {
        try await fill(["feed0", "feed1"])
        let store = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: 1))
        let open = try open("feed0", in: store)
        let events = await open.events
        try store.keepWithinBudget()
        var followed: FeedEvent?
        for await event in events where event.kind == .followedOtherWriter || event.kind == .reloadedFromFile {
            followed = event
            break
        }
        #expect(followed?.kind == .followedOtherWriter)
        #expect(await loaded(open) == (try test.idsOnDisk(key: "feed0")).prefix(40).map { $0 })
        #expect(await open.snapshot.ids.count == (try rows("feed0")))
        #expect(try rows("feed0") < 100)
    }

    /// How many operations the churn test makes: `PAGEDSTORE_BUDGET_OPERATIONS` (default 400).
    static var churnOperations: Int {
        ProcessInfo.processInfo.environment["PAGEDSTORE_BUDGET_OPERATIONS"].flatMap(Int.init) ?? 400
    }

    /// Random refreshes, next pages and edits over twenty feeds, the budget checked after every write
    /// (`PAGEDSTORE_BUDGET_OPERATIONS` of them).
    @Test func randomChurnStaysWithinTheBudget() async throws {
        let budget: Int64 = 600_000
        let store = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: budget))
        var random = SystemRandomNumberGenerator()
        let queue = try DatabaseQueue(path: test.path)
        for step in 0..<Self.churnOperations {
            let key = "feed\(Int.random(in: 0..<20, using: &random))"
            let feed = try open(key, in: store)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: await feed.refresh()
            case 1: await feed.loadNextPage()
            default:
                if let id = await feed.snapshot.ids.randomElement(using: &random) {
                    _ = try await feed.update(Article(id: id, body: "edited", revision: step))
                }
            }
            let size = try queue.read { try $0.fileSpace().bytes }
            #expect(size <= budget + budget / 10, "step \(step): \(size) bytes")
        }
        store.close()
        #expect(try fileSize() <= budget + budget / 10)
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }
}
