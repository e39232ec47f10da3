import Foundation
import PagedStore
import PagedStoreFixtures
import PagedStoreTesting

/// The shared benchmark's workloads, each through the code path an app or `pagedb` uses: no bench-only SQL.
///
/// The schema differs from the reference's (see PERFORMANCE.md); inputs, durability
/// settings, transaction boundaries and the results copied out are the same.
struct BenchWorkloads {
    let dir: String
    let items: SyntheticItems

    static let pageItems = 50
    static let appendPages = 2000
    static let samples = 1000

    var w1: String { dir + "/w1.db" }
    var w2: String { dir + "/w2.db" }

    // MARK: - W1: append 2,000 pages through the engine's next-page path

    func appendViaNextPage() async throws {
        try await appendViaNextPage(label: "W1", codec: JSONItem.codec) { $0 }
    }

    /// W1S: W1 with posts whose type shares them across feeds (``FeedItem/sharedItemType``): what
    /// sharing costs a write when no other feed holds the posts (each row joins the index by id,
    /// and each is looked up there). Then W1 and W1S again with ids in the order the server made
    /// them, newest largest (as Mastodon's and Bluesky's are): the workload's ids are random, so
    /// that every row lands on a random leaf of each index by id.
    func appendSharedViaNextPage() async throws {
        try await appendViaNextPage(label: "W1S", codec: SharedBenchItem.codec) { SharedBenchItem(post: $0) }
        try await appendViaNextPage(label: "W1-ordered-ids", codec: JSONItem.codec, orderedIDs: true) { $0 }
        try await appendViaNextPage(label: "W1S-ordered-ids", codec: SharedBenchItem.codec, orderedIDs: true) {
            SharedBenchItem(post: $0)
        }
    }

    /// - Returns: Items appended per second.
    @discardableResult
    func appendViaNextPage<Item: FeedItem>(
        label: String, codec: ItemCodec<Item>, orderedIDs: Bool = false, _ wrap: (JSONItem) -> Item
    ) async throws -> Double {
        removeDatabase(w1)
        let pages = (0..<Self.appendPages).map { page in
            let start = page * Self.pageItems
            return Page(
                items: (start..<(start + Self.pageItems)).map { number in
                    var item = jsonItem(number)
                    if orderedIDs { item.id = "it_" + String(UInt64(Int64.max) - UInt64(number), radix: 16) }
                    return wrap(item)
                },
                olderCursor: "c:" + items.itemID(start + Self.pageItems - 1))
        }
        var byCursor: [String: Int] = [:]
        for (index, page) in pages.enumerated().dropLast() { byCursor[page.olderCursor ?? ""] = index + 1 }
        let lookup = byCursor
        let source = ScriptedSource<Item> { request in
            guard let cursor = request.cursor else { return pages[0] }
            guard let index = lookup[cursor] else { throw BenchFailure("unknown cursor in W1") }
            return pages[index]
        }
        var wall = 0.0
        var cpu = 0.0
        do {
            let feed = try FeedStore(path: w1).feed(
                "feed_main", source: source, policy: FeedPolicy(refreshOnOpen: .never), codec: codec)
            sync()
            for page in 0..<Self.appendPages {
                let (startWall, startCPU) = (BenchClock.wall(), BenchClock.cpu())
                if page == 0 { await feed.refresh() } else { await feed.loadNextPage() }
                wall += BenchClock.wall() - startWall
                cpu += BenchClock.cpu() - startCPU
            }
            let snapshot = await feed.snapshot
            guard snapshot.rows.count == Self.appendPages * Self.pageItems, snapshot.change.insertedRows.count == 50
            else { throw BenchFailure("\(label) ended with \(snapshot.rows.count) rows") }
        }
        let total = Self.appendPages * Self.pageItems
        print(
            "\(label) impl=pagedstore items=\(total) txns=\(Self.appendPages) total_s=\(String(format: "%.4f", wall)) "
                + "items_per_s=\(Int(Double(total) / wall)) txn_us=\(BenchClock.format(wall / 2000 * 1e6)) "
                + "cpu_s=\(String(format: "%.2f", cpu)) db_bytes=\(fileSize(w1))")
        return Double(total) / wall
    }

    // MARK: - W2: 1,000,000 items in 1,000 feeds through the seed path

    func bulkSeed() throws {
        removeDatabase(w2)
        var wall = 0.0
        var cpu = 0.0
        do {
            let queue = try DatabaseQueue(path: w2)
            sync()
            for transaction in 0..<100 {
                let batch = (transaction * 10..<(transaction * 10 + 10)).map { feed in
                    (
                        Self.feedKey(feed),
                        Array(items.pages(feed * 1000..<(feed * 1000 + 1000), pageSize: Self.pageItems))
                    )
                }
                let (startWall, startCPU) = (BenchClock.wall(), BenchClock.cpu())
                try queue.write { store in
                    for (key, pages) in batch { try store.seed(pages, into: key) }
                }
                wall += BenchClock.wall() - startWall
                cpu += BenchClock.cpu() - startCPU
            }
        }
        print(
            "W2 impl=pagedstore items=1000000 txns=100 total_s=\(String(format: "%.4f", wall)) "
                + "items_per_s=\(Int(1_000_000 / wall)) cpu_s=\(String(format: "%.2f", cpu)) db_bytes=\(fileSize(w2))")
    }

    // MARK: - W3: the first screen of a random feed, cold and warm

    func firstScreenCold() throws {
        sync()
        var wall: [Double] = []
        var cpu: [Double] = []
        for sample in 0..<Self.samples {
            let feed = featuredFeed(sample)
            let (startWall, startCPU) = (BenchClock.wall(), BenchClock.cpu())
            let rows = try DatabaseQueue(path: w2).readStatement { store in try firstScreen(Self.feedKey(feed), store) }
            wall.append(BenchClock.wall() - startWall)
            cpu.append(BenchClock.cpu() - startCPU)
            try checkFirstScreen(rows, feed: feed)
        }
        print(
            "W3 impl=pagedstore mode=cold \(BenchClock.latencyFields(wall)) cpu_median_us=\(BenchClock.medianMicroseconds(cpu)) "
                + "cpu_mean_us=\(BenchClock.format(cpu.reduce(0, +) / Double(cpu.count) * 1e6))")
    }

    func firstScreenWarm() throws {
        let queue = try DatabaseQueue(path: w2)
        sync()
        var wall: [Double] = []
        for sample in 0..<Self.samples {
            let feed = featuredFeed(sample)
            let start = BenchClock.wall()
            let rows = try queue.readStatement { store in try firstScreen(Self.feedKey(feed), store) }
            wall.append(BenchClock.wall() - start)
            try checkFirstScreen(rows, feed: feed)
        }
        print("W3w impl=pagedstore mode=warm \(BenchClock.latencyFields(wall))")
    }

    // MARK: - W4: a keyset page deep in a 100,000-row feed

    func keysetDeepPage() throws {
        let queue = try DatabaseQueue(path: w1)
        guard let feed = try queue.read({ try $0.feed(key: "feed_main") }) else { throw BenchFailure("W4 needs W1") }
        sync()
        var wall: [Double] = []
        for sample in 0..<Self.samples {
            let target = 50 * (1000 + Int(items.random(tag: 5, UInt64(sample)) % 1000))
            let start = BenchClock.wall()
            let rows = try queue.readStatement { store in
                try store.window(
                    of: feed, from: .after(position: Int64(target - 1) * PageStore.positionStep), limit: 50)
            }
            wall.append(BenchClock.wall() - start)
            guard rows.count == 50, rows.first?.position == Int64(target) * PageStore.positionStep else {
                throw BenchFailure("W4 read the wrong rows at \(target)")
            }
        }
        print("W4 impl=pagedstore method=keyset \(BenchClock.latencyFields(wall))")
    }

    // MARK: - Helpers

    static func feedKey(_ feed: Int) -> String {
        "feed_" + String(repeating: "0", count: 4 - String(feed).count) + String(feed)
    }

    /// W3's feed for sample `sample`.
    func featuredFeed(_ sample: Int) -> Int { Int(items.random(tag: 4, UInt64(sample)) % 1000) }

    /// The store's first-screen read by key: the feed's id and its top rows in one statement.
    func firstScreen(_ key: String, _ store: PageStore) throws -> [StoredItem] {
        try store.topRows(ofFeedKey: key, limit: Self.pageItems)
    }

    func checkFirstScreen(_ rows: [StoredItem], feed: Int) throws {
        guard rows.count == 50, rows.first?.itemID == items.itemID(feed * 1000),
            rows.last?.position == 49 * PageStore.positionStep
        else { throw BenchFailure("the first screen of feed \(feed) is wrong") }
    }

    func jsonItem(_ number: Int, revision: Int = 0) -> JSONItem {
        JSONItem(FixtureItem(id: items.itemID(number), section: nil, json: items.payload(number, revision: revision)))
    }

    func removeDatabase(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}

/// A benchmark that read or wrote the wrong thing: its figures would mean nothing.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
