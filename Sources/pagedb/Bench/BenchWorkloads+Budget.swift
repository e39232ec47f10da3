import Foundation
import PagedStore
import PagedStoreFixtures
import PagedStoreTesting

/// BUDGET: a store of many feeds under a budget for the whole file.
extension BenchWorkloads {
    static let budgetFeeds = 1_000
    static let budgetBytes: Int64 = 20_000_000

    /// 1,000 feeds of 200 posts under a 20 MB budget, 30% of the posts shared by 5 feeds, then
    /// 10,000 random refreshes (10 new posts on top), next pages and edits: the file's size against
    /// the budget (after every write and at the end, on disk), and the time to open the store and a
    /// feed against a store of 10 feeds.
    func budget() async throws {
        let path = dir + "/budget.db"
        removeDatabase(path)
        let servers = BudgetServers(items: self)
        let store = try FeedStore(path: path, budget: StoreBudget(maxBytes: Self.budgetBytes))
        let evictions = Box()
        let counting = Task {
            for await eviction in store.evictions where eviction.feedKey != nil { evictions.value += 1 }
        }
        let started = BenchClock.wall()
        for feed in 0..<Self.budgetFeeds { try await fill(feed, in: store, servers: servers) }
        let filled = BenchClock.wall() - started
        let queue = try DatabaseQueue(path: path, mode: .readOnly)
        var random = SplitMix64(seed: 24)
        var largest: Int64 = 0
        var wall: [Double] = []
        for operation in 0..<10_000 {
            let key = Int(random.next() % UInt64(Self.budgetFeeds))
            let feed = try store.feed(
                "feed\(key)", source: servers.source(key), policy: FeedPolicy(refreshOnOpen: .never),
                codec: SharedBenchItem.codec)
            let start = BenchClock.wall()
            switch random.next() % 3 {
            case 0:
                servers.publish(10, in: key)
                await feed.refresh()
            case 1: await feed.loadNextPage()
            default:
                let loaded = await feed.snapshot.rows.loadedItems
                if !loaded.isEmpty {
                    var item = loaded[Int(random.next() % UInt64(loaded.count))]
                    item.post.json = Data(#"{"edited":\#(operation)}"#.utf8)
                    _ = try await feed.update(item)
                }
            }
            wall.append(BenchClock.wall() - start)
            largest = max(largest, try queue.read { try $0.fileSpace().bytes })
        }
        counting.cancel()
        store.close()
        let onDisk = fileSize(path)
        print(
            "BUDGET impl=pagedstore feeds=\(Self.budgetFeeds) budget_bytes=\(Self.budgetBytes) "
                + "fill_s=\(BenchClock.format(filled)) max_db_bytes=\(largest) final_file_bytes=\(onDisk) "
                + "ratio=\(String(format: "%.3f", Double(onDisk) / Double(Self.budgetBytes))) "
                + "evictions=\(evictions.value) operation_\(BenchClock.latencyFields(wall))")
        let small = dir + "/budget10.db"
        removeDatabase(small)
        let tenStore = try FeedStore(path: small, budget: StoreBudget(maxBytes: Self.budgetBytes))
        for feed in 0..<10 { try await fill(feed, in: tenStore, servers: servers) }
        tenStore.close()
        // Feeds that hold rows in both files: an evicted feed opens empty, which is quicker.
        let kept = try DatabaseQueue(path: path, mode: .readOnly).read { store in
            try store.feeds().filter { $0.rowCount >= 100 }.prefix(10).compactMap { Int($0.key.dropFirst(4)) }
        }
        // A reader stays open on each file, as `queue` does on the large one: otherwise each close
        // of the last connection checkpoints and deletes the log, and each open creates it again,
        // which costs more than everything measured here.
        let readers = try [path, small].map { try DatabaseQueue(path: $0, mode: .readOnly) }
        var many: [Double] = []
        var ten: [Double] = []
        for _ in 0..<5 {  // interleaved, so that the machine's slow phases fall on both
            many += try openStoreAndFeed(path, feeds: kept, servers: servers)
            ten += try openStoreAndFeed(small, feeds: Array(0..<10), servers: servers)
        }
        _ = readers
        print(
            "BUDGET-open impl=pagedstore feeds=\(Self.budgetFeeds) opened=\(kept.count) many_median_us=\(BenchClock.medianMicroseconds(many)) "
                + "ten_median_us=\(BenchClock.medianMicroseconds(ten)) "
                + "ratio=\(String(format: "%.2f", Self.median(many) / Self.median(ten)))")
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[(sorted.count - 1) / 2]
    }

    /// A feed's first 200 posts: a refresh and three next pages.
    private func fill(_ feed: Int, in store: FeedStore, servers: BudgetServers) async throws {
        let opened = try store.feed(
            "feed\(feed)", source: servers.source(feed), policy: FeedPolicy(refreshOnOpen: .never),
            codec: SharedBenchItem.codec)
        await opened.refresh()
        for _ in 0..<3 { await opened.loadNextPage() }
    }

    /// Opening the store and one of `feeds` (its first snapshot), 10 times in turn.
    private func openStoreAndFeed(_ path: String, feeds: [Int], servers: BudgetServers) throws -> [Double] {
        guard !feeds.isEmpty else { throw BenchFailure("BUDGET kept no feed of 100 rows") }
        return try (0..<10).map { run in
            let key = feeds[run % feeds.count]
            let start = BenchClock.wall()
            let store = try FeedStore(path: path, budget: StoreBudget(maxBytes: Self.budgetBytes))
            let feed = try store.feed(
                "feed\(key)", source: servers.source(key), policy: FeedPolicy(refreshOnOpen: .never),
                codec: SharedBenchItem.codec)
            _ = feed
            let elapsed = BenchClock.wall() - start
            store.close()
            return elapsed
        }
    }
}

/// The servers of BUDGET's feeds: feed k lists posts k·1,000,000 + n, newest (largest n) first,
/// 50 a page, the cursor being the last post's n. Three posts in ten (n ending in 0, 1 or 2) are
/// shared by the five feeds k / 5 groups together: the same post, with the same id and content,
/// as a post of a profile shows in the home timeline, a hashtag and a search.
final class BudgetServers: @unchecked Sendable {
    // @unchecked: `newest` is only touched with `lock` held.
    private let lock = NSLock()
    private var newest: [Int: Int] = [:]
    private let items: BenchWorkloads

    init(items: BenchWorkloads) {
        self.items = items
    }

    /// Adds `count` posts on top of feed `feed`'s list.
    func publish(_ count: Int, in feed: Int) {
        lock.withLock { newest[feed, default: 199] += count }
    }

    func source(_ feed: Int) -> ScriptedSource<SharedBenchItem> {
        ScriptedSource { [self] request in
            let top = lock.withLock { newest[feed, default: 199] }
            var first = top
            if case .olderThan(let cursor) = request { first = (Int(cursor) ?? 0) - 1 }
            let numbers = Array(stride(from: first, to: max(first - 50, -1), by: -1))
            let posts = numbers.map { n in
                let number = n % 10 < 3 ? 900_000_000 + feed / 5 * 1_000_000 + n : feed * 1_000_000 + n
                return SharedBenchItem(post: items.jsonItem(number))
            }
            return Page(items: posts, olderCursor: (numbers.last ?? 0) > 0 ? numbers.last.map(String.init) : nil)
        }
    }
}

/// BUDGET's post: one item across the feeds that hold it.
struct SharedBenchItem: FeedItem {
    static let sharedItemType: String? = "post"
    var post: JSONItem
    var id: String { post.id }

    /// The post's JSON, as ``JSONItem`` stores it.
    static let codec = ItemCodec<SharedBenchItem>(
        storesText: true, encode: { try JSONItem.codec.encode($0.post) },
        decode: { SharedBenchItem(post: try JSONItem.codec.decode($0)) })
}
