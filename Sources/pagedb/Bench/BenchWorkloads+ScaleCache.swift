import Foundation
import PagedStore
import PagedStoreFixtures
import PagedStoreTesting

/// SCALE's rows whose work does not grow with the cache around it: a refresh merge on larger feeds,
/// a shared copy placed deeper in another feed, the first screen of a file with more feeds, and a
/// write followed while more lists of other feeds are observed. Each should be flat.
extension BenchWorkloads {
    func scaleWithTheCache() async throws {
        try await mergingIntoLargerFeeds()
        try await placingASharedCopyDeeper()
        try await firstScreenAmongMoreFeeds()
        try await followingAmongObservedFeeds()
    }

    /// W5's refresh (30 new posts on top, 20 revised) on a feed seeded with 1,000 / 100,000 /
    /// 1,000,000 rows below it.
    private func mergingIntoLargerFeeds() async throws {
        var medians: [(size: Int, median: Double)] = []
        for rows in [1_000, 100_000, 1_000_000] {
            let path = dir + "/scale-merge.db"
            removeDatabase(path)
            try seedFeeds(path, keys: ["merge"], rowsEach: rows)
            let refreshes = 60
            let current = Box()
            let source = ScriptedSource<JSONItem> { _ in self.mergePage(current.value) }
            let store = try FeedStore(path: path)
            let feed = try store.feed(
                "merge", source: source, policy: FeedPolicy(refreshOnOpen: .never), codec: JSONItem.codec)
            var times: [Double] = []
            for refresh in 0..<refreshes {
                current.value = refresh
                let started = BenchClock.wall()
                await feed.refresh()
                times.append(BenchClock.wall() - started)
                let change = await feed.snapshot.change
                guard change.insertedRows.count == 30, change.reloadedRows.count == 20 else {
                    throw BenchFailure("SCALE merge: refresh \(refresh) of \(rows) rows gave an unexpected change")
                }
            }
            print("SCALE impl=pagedstore op=merge feed_rows=\(rows) \(BenchClock.latencyFields(times))")
            medians.append((rows, times.sorted()[times.count / 2]))
            store.close()
        }
        printGrowth("merge", medians)
    }

    /// W5's page for refresh `refresh`: 30 new posts, and the 20 that came new just before (or the
    /// seed's top 20) revised.
    private func mergePage(_ refresh: Int) -> Page<JSONItem> {
        let fresh = (0..<30).map { jsonItem(Self.freshNumbers + 30 * refresh + $0) }
        let revised = (0..<20).map {
            jsonItem(refresh == 0 ? $0 : Self.freshNumbers + 30 * (refresh - 1) + $0, revision: refresh + 1)
        }
        return Page(items: fresh + revised, olderCursor: "c:more")
    }

    /// Item numbers no seeded feed holds.
    private static let freshNumbers = 50_000_000

    /// An update of a shared post made in one feed, timed while another feed of 100,050 rows holds
    /// the post at row 10 / 10,000 / 100,000, in pages of a server's size: the copy is written
    /// there and its reload recorded. The other feed's open list shows its first rows in each case,
    /// so only the copy's place differs.
    private func placingASharedCopyDeeper() async throws {
        var medians: [(size: Int, median: Double)] = []
        let rows = 100_000 + Self.pageItems
        for depth in [10, 10_000, 100_000] {
            let path = dir + "/scale-shared.db"
            removeDatabase(path)
            let post = Self.freshNumbers
            // The deep feed in pages of a server's size, as scrolling would leave it.
            var pages = Array(items.pages(0..<rows, pageSize: Self.pageItems))
            pages[depth / Self.pageItems].items.insert(
                FixtureItem(id: items.itemID(post), section: nil, json: items.payload(post)),
                at: depth % Self.pageItems)
            let queue = try DatabaseQueue(path: path)
            _ = try queue.write { store in try store.seed(pages, into: "deep") }
            queue.close()
            let store = try FeedStore(path: path)
            let policy = FeedPolicy(refreshOnOpen: .never)
            let deep = try store.feed(
                "deep", source: ScriptedSource<SharedBenchItem> { _ in Page(items: [], olderCursor: nil) },
                policy: policy, codec: SharedBenchItem.codec)
            _ = await deep.snapshot
            let writerItems = [SharedBenchItem(post: jsonItem(post))]
            let writer = try store.feed(
                "writer", source: ScriptedSource { _ in Page(items: writerItems, olderCursor: nil) }, policy: policy,
                codec: SharedBenchItem.codec)
            await writer.refresh()
            guard await deep.snapshot.rows.count == rows + 1 else {
                throw BenchFailure("SCALE shared: the deep feed did not take \(rows + 1) rows")
            }
            var times: [Double] = []
            for revision in 1...41 {
                let started = BenchClock.wall()
                guard try await writer.update(SharedBenchItem(post: jsonItem(post, revision: revision))) else {
                    throw BenchFailure("SCALE shared: the writer does not hold the post")
                }
                times.append(BenchClock.wall() - started)
            }
            print("SCALE impl=pagedstore op=shared-copy depth=\(depth) \(BenchClock.latencyFields(times))")
            medians.append((depth, times.sorted()[times.count / 2]))
            store.close()
        }
        printGrowth("shared-copy", medians)
    }

    /// Opening the store and a feed until its first snapshot, in a file of 10 / 1,000 / 10,000
    /// feeds of 50 rows: an app's launch.
    private func firstScreenAmongMoreFeeds() async throws {
        var medians: [(size: Int, median: Double)] = []
        let source = ScriptedSource<BenchPost> { _ in Page(items: [], olderCursor: nil) }
        let policy = FeedPolicy(refreshOnOpen: .never, firstScreenRows: Self.pageItems)
        for feeds in [10, 1_000, 10_000] {
            let path = dir + "/scale-feeds.db"
            removeDatabase(path)
            try seedFeeds(path, keys: (0..<feeds).map { "f\($0)" }, rowsEach: Self.pageItems)
            let sampled = (0..<30).map { "f\($0 * 7919 % feeds)" }
            do {
                // Opening a feed records its policy once; do that before timing.
                let store = try FeedStore(path: path)
                for key in sampled { _ = try store.feed(key, source: source, policy: policy) }
                store.close()
            }
            var times: [Double] = []
            for key in sampled {
                let started = BenchClock.wall()
                let store = try FeedStore(path: path)
                let snapshot = await (try store.feed(key, source: source, policy: policy)).snapshot
                times.append(BenchClock.wall() - started)
                store.close()
                guard snapshot.rows.count == Self.pageItems else {
                    throw BenchFailure("SCALE first screen: \(key) shows \(snapshot.rows.count) rows")
                }
            }
            print("SCALE impl=pagedstore op=first-screen feeds=\(feeds) \(BenchClock.latencyFields(times))")
            medians.append((feeds, times.sorted()[times.count / 2]))
        }
        printGrowth("first-screen", medians)
    }

    /// One update of a row of feed `f0`, timed until a second list of `f0` shows it, in a file of 1
    /// or 1,000 feeds with 0 or 50 lists of other feeds observed: what the other feeds' lists add.
    private func followingAmongObservedFeeds() async throws {
        var medians: [(size: Int, median: Double)] = []
        for (feeds, observed) in [(1, 0), (1_000, 0), (1_000, 50)] {
            let times = try await followTimes(feeds: feeds, otherListsObserved: observed)
            print(
                "SCALE impl=pagedstore op=follow-among feeds=\(feeds) other_lists=\(observed) "
                    + BenchClock.latencyFields(times))
            medians.append((observed + feeds, times.sorted()[times.count / 2]))
        }
        printGrowth("follow-among", medians)
    }

    /// The times from 101 updates of feed `f0` until another list of it shows each.
    private func followTimes(feeds: Int, otherListsObserved observed: Int) async throws -> [Double] {
        let path = dir + "/scale-among.db"
        removeDatabase(path)
        try seedFeeds(path, keys: (observed + 1..<feeds).map { "f\($0)" }, rowsEach: 20)
        let store = try FeedStore(path: path)
        defer { store.close() }
        let policy = FeedPolicy(refreshOnOpen: .never)
        func open(_ key: String) async throws -> Feed<EditBenchItem> {
            let items = (0..<20).map { EditBenchItem(id: "\(key)-\($0)", revision: 0) }
            let feed = try store.feed(
                key, source: ScriptedSource { _ in Page(items: items, olderCursor: nil) }, policy: policy)
            if await feed.snapshot.rows.count == 0 { await feed.refresh() }
            return feed
        }
        let writer = try await open("f0")
        let follower = await EditLatencyObserver(try await open("f0")) { $0.revision }
        var others: [EditLatencyObserver<EditBenchItem>] = []
        for other in 0..<observed {
            others.append(await EditLatencyObserver(try await open("f\(other + 1)")) { $0.revision })
        }
        defer { for list in others + [follower] { list.stop() } }
        var times: [Double] = []
        for write in 1...101 {
            let row = write % 20
            follower.expect(row: row, revision: write)
            let started = BenchClock.wall()
            try await writer.update(EditBenchItem(id: "f0-\(row)", revision: write))
            guard let shown = await follower.shown(within: EditBench.patience) else {
                throw BenchFailure("SCALE follow-among: the list did not show write \(write)")
            }
            times.append(shown - started)
        }
        return times
    }

    /// A new file with the feeds `keys`, each of `rowsEach` synthetic posts, seeded in transactions
    /// of up to 100,000 rows.
    private func seedFeeds(_ path: String, keys: [String], rowsEach: Int) throws {
        let queue = try DatabaseQueue(path: path)
        let feedsPerWrite = max(100_000 / max(rowsEach, 1), 1)
        for start in stride(from: 0, to: keys.count, by: feedsPerWrite) {
            try queue.write { store in
                for key in keys[start..<min(start + feedsPerWrite, keys.count)] {
                    for chunk in stride(from: 0, to: rowsEach, by: 100_000) {
                        try store.seed(
                            items.pages(chunk..<min(chunk + 100_000, rowsEach), pageSize: Self.pageItems), into: key)
                    }
                }
            }
        }
        queue.close()
    }
}
