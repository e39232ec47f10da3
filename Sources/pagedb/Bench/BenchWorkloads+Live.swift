import Foundation
import PagedStore
import PagedStoreFixtures

/// LIVE: how soon an open list shows another writer's commit, and what following costs when
/// nothing is written.
///
/// Every set-up makes the same paced commits (one local insert on top every few milliseconds, and
/// an idle pause of 300 to 550 ms now and then, so that a look that backed off is measured too) and an observing
/// `Feed` with a snapshot subscriber, as a list, times each item from the start of its write to the
/// snapshot that shows it. Printed, never asserted: the goals are p99 ≤ 5 ms in one process and
/// ≤ 50 ms across processes.
extension BenchWorkloads {
    /// The pace every set-up writes at.
    enum LivePace {
        static let commits = 1000
        static let intervalMilliseconds = 5
        static let pauseEvery = 50
        static let pauseMilliseconds = 300
        /// Up to this much more on each pause, so that pauses end at every point of a backed-off wait.
        static let pauseJitterMilliseconds = 250
        /// How long a commit may take to show before the benchmark counts it missed and goes on.
        static let patience = 5.0

        /// Whether commit `number` is the first after an idle pause.
        static func followsAPause(_ number: Int) -> Bool { number > 0 && number % pauseEvery == 0 }

        /// Makes the paced commits on `feed`: item `w0`, `w1`… inserted on top, each carrying the instant
        /// its write began; `each` runs after every insert, before the pace's wait.
        static func write(_ feed: Feed<LiveBenchItem>, each: (String) async -> Void) async throws {
            var random = SplitMix64(seed: 1)
            for number in 0..<commits {
                let id = "w\(number)"
                try await feed.insert(LiveBenchItem(id: id, writtenAt: LiveBenchItem.now()), at: 0)
                await each(id)
                try await pace(after: number, using: &random)
            }
        }

        /// Waits after commit `number`: the interval, or after every `pauseEvery`-th an idle pause.
        private static func pace(after number: Int, using random: inout SplitMix64) async throws {
            guard (number + 1) % pauseEvery == 0 else {
                return try await Task.sleep(for: .milliseconds(intervalMilliseconds))
            }
            let jitter = Int(random.next() % UInt64(pauseJitterMilliseconds + 1))
            try await Task.sleep(for: .milliseconds(pauseMilliseconds + jitter))
        }
    }

    /// The writer of (c), run in the process that `pagedb bench --live-writer PATH` starts: the paced
    /// commits on the feed `live` of the file at `path`, blind (nothing in that process observes them).
    static func writeLive(to path: String) async throws {
        let store = try FeedStore(path: path)
        let feed = try store.feed("live", source: LiveBenchItem.silentSource, policy: FeedPolicy(refreshOnOpen: .never))
        try await LivePace.write(feed) { _ in }
        store.close()
    }

    func live() async throws {
        try await liveInProcess(setup: "two-feeds-one-store", separateStores: false)
        try await liveInProcess(setup: "two-stores-one-file", separateStores: true)
        try await liveAcrossProcesses()
        try await idleCost(observed: true)
        try await idleCost(observed: false)
    }

    /// (a) and (b): the writer and the observer in this process, on one store or on two.
    private func liveInProcess(setup: String, separateStores: Bool) async throws {
        let path = dir + "/live.db"
        removeDatabase(path)
        let store = try FeedStore(path: path)
        let observerStore = separateStores ? try FeedStore(path: path) : store
        let policy = FeedPolicy(refreshOnOpen: .never)
        let writer = try store.feed("live", source: LiveBenchItem.silentSource, policy: policy)
        let observer = await LiveLatencyObserver(
            try observerStore.feed("live", source: LiveBenchItem.silentSource, policy: policy))
        try await LivePace.write(writer) { id in _ = await observer.waitUntilShown(id, within: LivePace.patience) }
        observer.stop()
        printLatency(setup: setup, observer.recorded, goalMilliseconds: 5)
        store.close()
        observerStore.close()
    }

    /// (c): another process writes, this same pagedb started as `pagedb bench --live-writer PATH` (the
    /// benchmark needs no other binary); a feed in this process observes.
    private func liveAcrossProcesses() async throws {
        let path = dir + "/live.db"
        removeDatabase(path)
        let store = try FeedStore(path: path)
        let feed = try store.feed("live", source: LiveBenchItem.silentSource, policy: FeedPolicy(refreshOnOpen: .never))
        let observer = await LiveLatencyObserver(feed)
        let writer = Process()
        writer.executableURL = Bundle.main.executableURL
        writer.arguments = ["bench", "--live-writer", path]
        writer.standardOutput = FileHandle.nullDevice
        let ended = AsyncStream<Int32> { continuation in
            writer.terminationHandler = { process in
                continuation.yield(process.terminationStatus)
                continuation.finish()
            }
        }
        try writer.run()
        for await status in ended where status != 0 { throw BenchFailure("the live writer exited with \(status)") }
        _ = await observer.waitUntilShown("w\(LivePace.commits - 1)", within: LivePace.patience)
        observer.stop()
        printLatency(setup: "two-processes", observer.recorded, goalMilliseconds: 50)
        store.close()
    }

    /// One line per set-up; `missed` counts the commits no snapshot showed within the patience.
    private func printLatency(setup: String, _ recorded: [(id: String, seconds: Double)], goalMilliseconds: Int) {
        let missed = LivePace.commits - recorded.count
        let afterPauses = recorded.filter { LivePace.followsAPause(Int($0.id.dropFirst()) ?? 0) }.map(\.seconds)
        let afterPausesMax = afterPauses.max().map { BenchClock.format($0 * 1e6) } ?? "0"
        print(
            "LIVE impl=pagedstore setup=\(setup) commits=\(LivePace.commits) missed=\(missed) "
                + "\(BenchClock.latencyFields(recorded.map(\.seconds))) after_pause_n=\(afterPauses.count) "
                + "after_pause_median_us=\(BenchClock.medianMicroseconds(afterPauses)) "
                + "after_pause_max_us=\(afterPausesMax) goal_p99_us=\(goalMilliseconds * 1000)")
    }

    /// (d): ten open feeds and no writes for five seconds, each feed's snapshots observed or not:
    /// the process's CPU time (user and system, every thread) as a share of one core.
    private func idleCost(observed: Bool) async throws {
        let path = dir + "/live-idle.db"
        removeDatabase(path)
        let store = try FeedStore(path: path)
        var feeds: [Feed<LiveBenchItem>] = []
        for index in 0..<10 {
            let feed = try store.feed(
                "idle\(index)", source: LiveBenchItem.silentSource, policy: FeedPolicy(refreshOnOpen: .never))
            try await feed.insert(LiveBenchItem(id: "i\(index)", writtenAt: LiveBenchItem.now()), at: 0)
            feeds.append(feed)
        }
        var observers: [Task<Void, Never>] = []
        if observed {
            for feed in feeds {
                let stream = await feed.snapshots
                observers.append(Task { for await _ in stream {} })
            }
        }
        let seconds = 5.0
        // Let the writes above settle (a watcher backs off after a change) before measuring.
        try await Task.sleep(for: .milliseconds(500))
        let (startWall, startCPU) = (BenchClock.wall(), BenchClock.usage())
        try await Task.sleep(for: .seconds(seconds))
        let wall = BenchClock.wall() - startWall
        let cpu = BenchClock.usage() - startCPU
        for observer in observers { observer.cancel() }
        print(
            "LIVE impl=pagedstore setup=idle feeds=10 observed=\(observed ? "yes" : "no") "
                + "wall_s=\(BenchClock.format(wall)) cpu_ms=\(BenchClock.format(cpu * 1e3)) "
                + "cpu_percent_of_core=\(String(format: "%.3f", cpu / wall * 100))")
        store.close()
    }
}
