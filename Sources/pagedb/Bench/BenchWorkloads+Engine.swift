import Foundation
import PagedStore
import PagedStoreFixtures
import PagedStoreTesting

/// The workloads that run through a `Feed`: W5's refresh merge, the decoded first screen, and scrolling.
extension BenchWorkloads {
    /// W5: 200 refreshes of 50 items (30 new on top, 20 revised) merged by the engine, with the change
    /// set computed; then the same on a 100-row feed, to show the cost does not grow with the feed.
    ///
    /// The W5small line ends with `flat=`: W5's wall median ÷ W5small's, the figure to judge flatness
    /// by. (Not `cpu_median_us`: the process CPU clock sees the storage executor's thread only once
    /// the kernel has accounted it, so a refresh's CPU time reads either about right or near zero.)
    func refreshMerge() async throws {
        let large = try await refreshMerge(path: w1, label: "W5", setUp: nil, comparedWith: nil)
        let small = dir + "/w5small.db"
        removeDatabase(small)
        try await refreshMerge(path: small, label: "W5small", setUp: 100, comparedWith: large)
    }

    /// Runs W5 on the feed `feed_main` of `path`; `setUp` rows are written first when given.
    /// - Returns: The wall-clock median of a refresh, in seconds.
    @discardableResult
    private func refreshMerge(
        path: String, label: String, setUp rows: Int?, comparedWith largeMedian: Double?
    ) async throws -> Double {
        let refreshes = 200
        let pages = (0..<refreshes).map { refresh in
            let fresh = (0..<30).map { jsonItem(100_000 + 30 * refresh + $0) }
            let revised = (0..<20).map {
                jsonItem(refresh == 0 ? $0 : 100_000 + 30 * (refresh - 1) + $0, revision: refresh + 1)
            }
            let delivered = fresh + revised
            return Page(items: delivered, olderCursor: "c:" + delivered[delivered.count - 1].id)
        }
        let current = Box()
        let source = ScriptedSource<JSONItem> { _ in pages[current.value] }
        let store = try FeedStore(path: path)
        if let rows {
            let seed = ScriptedSource<JSONItem> { _ in
                Page(items: (0..<rows).map { jsonItem($0) }, olderCursor: "c:seed")
            }
            await
                (try store.feed(
                    "feed_main", source: seed, policy: FeedPolicy(refreshOnOpen: .never), codec: JSONItem.codec))
                .refresh()
        }
        let feed = try store.feed(
            "feed_main", source: source, policy: FeedPolicy(refreshOnOpen: .never), codec: JSONItem.codec)
        let before = await feed.snapshot.rows.count
        sync()
        var wall: [Double] = []
        var cpu: [Double] = []
        for refresh in 0..<refreshes {
            current.value = refresh
            let (startWall, startCPU) = (BenchClock.wall(), BenchClock.cpu())
            await feed.refresh()
            wall.append(BenchClock.wall() - startWall)
            cpu.append(BenchClock.cpu() - startCPU)
            let change = await feed.snapshot.change
            guard change.insertedRows.map({ $0[1] }) == Array(0..<30), change.reloadedRows.count == 20 else {
                throw BenchFailure("\(label) refresh \(refresh) gave an unexpected change")
            }
        }
        let after = await feed.snapshot.rows.count
        guard after == before + 30 * refreshes else { throw BenchFailure("\(label) ended with \(after) rows") }
        let median = wall.sorted()[(wall.count + 1) / 2 - 1]
        let flat = largeMedian.map { " flat=" + String(format: "%.2f", $0 / median) } ?? ""
        print(
            "\(label) impl=pagedstore new=30 overlap=20 feed_rows=\(before) \(BenchClock.latencyFields(wall)) "
                + "cpu_median_us=\(BenchClock.medianMicroseconds(cpu)) "
                + "cpu_mean_us=\(BenchClock.format(cpu.reduce(0, +) / Double(cpu.count) * 1e6))\(flat)")
        return median
    }

    /// FS: from opening a feed to its first snapshot with the visible rows decoded into a `Codable`
    /// struct, against the floor: the same rows read raw and decoded with Foundation's `JSONDecoder`.
    func decodedFirstScreen() async throws {
        let store = try FeedStore(path: w2)
        let queue = try DatabaseQueue(path: w2, mode: .readOnly)
        let source = ScriptedSource<BenchPost> { _ in Page(items: [], olderCursor: nil) }
        let policy = FeedPolicy(refreshOnOpen: .never, firstScreenRows: Self.pageItems)
        // Opening a feed records its policy once; do that for every feed before timing.
        for feed in 0..<1000 { _ = try store.feed(Self.feedKey(feed), source: source, policy: policy) }
        var engine: [Double] = []
        var floor: [Double] = []
        let decoder = JSONDecoder()
        for sample in 0..<Self.samples {
            let key = Self.feedKey(featuredFeed(sample))
            let startEngine = BenchClock.wall()
            let feed = try store.feed(key, source: source, policy: policy)
            let snapshot = await feed.snapshot
            engine.append(BenchClock.wall() - startEngine)
            let startFloor = BenchClock.wall()
            let rows = try queue.readStatement { store in try firstScreen(key, store) }
            let posts = try rows.map { try decoder.decode(BenchPost.self, from: $0.payload) }
            floor.append(BenchClock.wall() - startFloor)
            guard snapshot.rows.loadedRange == 0..<Self.pageItems, snapshot.rows[0]?.id == posts.first?.id else {
                throw BenchFailure("FS decoded the wrong first screen")
            }
        }
        let engineMedian = BenchClock.medianMicroseconds(engine)
        let floorMedian = BenchClock.medianMicroseconds(floor)
        let ratio = (Double(engineMedian) ?? 0) / max(Double(floorMedian) ?? 1, 0.001)
        print(
            "FS impl=pagedstore rows=\(Self.pageItems) engine_median_us=\(engineMedian) floor_median_us=\(floorMedian) "
                + "ratio=\(String(format: "%.2f", ratio))")
    }

    /// SCROLL: a cached feed of `rows` rows scrolled from top to bottom through `rowDidAppear`.
    func scroll(rows: Int) async throws {
        let path = dir + "/scroll-\(rows).db"
        let key = "scroll"
        let existing = try? DatabaseQueue(path: path).read { try $0.feed(key: key)?.rowCount }
        if existing != rows {
            removeDatabase(path)
            let queue = try DatabaseQueue(path: path)
            for start in stride(from: 0, to: rows, by: 100_000) {
                _ = try queue.write { store in
                    try store.seed(items.pages(start..<min(start + 100_000, rows), pageSize: Self.pageItems), into: key)
                }
            }
        }
        let source = ScriptedSource<BenchPost> { _ in Page(items: [], olderCursor: nil) }
        let feed = try FeedStore(path: path).feed(key, source: source, policy: FeedPolicy(refreshOnOpen: .never))
        let resetWorked = BenchClock.resetPeakMemory()
        let start = BenchClock.wall()
        for row in 0..<rows { await feed.rowDidAppear(row) }
        let seconds = BenchClock.wall() - start
        let snapshot = await feed.snapshot
        guard snapshot.rows[rows - 1]?.id == items.itemID(rows - 1) else {
            throw BenchFailure("SCROLL missed the last row")
        }
        print(
            "SCROLL impl=pagedstore rows=\(rows) total_s=\(String(format: "%.3f", seconds)) "
                + "rows_per_s=\(Int(Double(rows) / seconds)) peak_rss_bytes=\(BenchClock.peakResidentBytes()) "
                + "peak_since=\(resetWorked ? "scroll" : "process")")
    }
}

/// The workload's item as an app would model it.
struct BenchPost: FeedItem, Codable {
    let id: String
    let title: String
    let author: String
    let created_at: Int
    let body: String
}

/// A value shared with a source closure; only the benchmark's own sequential loop writes it.
final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = 0
    var value: Int {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
