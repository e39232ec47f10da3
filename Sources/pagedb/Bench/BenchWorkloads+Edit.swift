import Foundation
import PagedStore
import PagedStoreTesting

/// EDIT: how soon a list shows the app's own edit, from the call to the snapshot that shows it.
///
/// A feed of a few hundred rows, observed as a list observes it (a task reading its `snapshots`);
/// 1,000 edits, each of the next row in turn, each timed from just before its call to the first
/// snapshot that shows the row's new revision. Two forms: a queued edit (`enqueue`, sent by an
/// outbox handler that confirms at once, so sends and settles run beside the next edits) and an
/// optimistic edit whose server call returns at once (`edit(id:_:commit:)`). A third, `shared`,
/// makes the optimistic edit in one of five observed feeds that each hold every post (at another
/// row in each: the post is one item across them), timed until all five lists show it. Printed,
/// never asserted: the goal is p99 under one frame at 120 Hz (8 ms).
extension BenchWorkloads {
    /// The workload's sizes.
    enum EditBench {
        static let rows = 300
        static let edits = 1000
        static let goalMilliseconds = 8
        /// How long an edit may take to show before the benchmark counts it missed and goes on.
        static let patience = 5.0
    }

    func edits() async throws {
        try await editLatency(setup: "enqueue")
        try await editLatency(setup: "edit")
        try await sharedEditLatency()
    }

    /// The `shared` set-up: feed k lists the posts rotated by k·60 rows.
    private func sharedEditLatency() async throws {
        let path = dir + "/edit.db"
        removeDatabase(path)
        let store = try FeedStore(path: path)
        let lists = 5
        let items = (0..<EditBench.rows).map { SharedEditBenchItem(id: "e\($0)", revision: 0) }
        let policy = FeedPolicy(refreshOnOpen: .never, windowSize: 1_000, firstScreenRows: 1_000)
        var feeds: [Feed<SharedEditBenchItem>] = []
        var observers: [EditLatencyObserver<SharedEditBenchItem>] = []
        for list in 0..<lists {
            let rotated = Array(items[(list * 60)...] + items[..<(list * 60)])
            let source = ScriptedSource<SharedEditBenchItem> { _ in Page(items: rotated, olderCursor: nil) }
            let feed = try store.feed("edit\(list)", source: source, policy: policy)
            await feed.refresh()
            feeds.append(feed)
            observers.append(await EditLatencyObserver(feed) { $0.revision })
        }
        var latencies: [Double] = []
        for number in 0..<EditBench.edits {
            let post = number % EditBench.rows
            let revision = number / EditBench.rows + 1
            for (list, observer) in observers.enumerated() {
                observer.expect(row: (post - list * 60 + EditBench.rows) % EditBench.rows, revision: revision)
            }
            let started = BenchClock.wall()
            try await feeds[number % lists].edit(id: "e\(post)", { $0.revision = revision }, commit: { _ in })
            var last: Double? = started
            for observer in observers {
                let shown = await observer.shown(within: EditBench.patience)
                last = shown.flatMap { shown in last.map { max($0, shown) } }
            }
            if let last { latencies.append(last - started) }
        }
        for observer in observers { observer.stop() }
        print(
            "EDIT impl=pagedstore setup=shared lists=\(lists) rows=\(EditBench.rows) edits=\(EditBench.edits) "
                + "missed=\(EditBench.edits - latencies.count) \(BenchClock.latencyFields(latencies)) "
                + "goal_p99_us=\(EditBench.goalMilliseconds * 1000)")
        store.close()
    }

    /// One set-up: a fresh file, the feed loaded, then the edits.
    private func editLatency(setup: String) async throws {
        let path = dir + "/edit.db"
        removeDatabase(path)
        let store = try FeedStore(path: path)
        let items = (0..<EditBench.rows).map { EditBenchItem(id: "e\($0)", revision: 0) }
        let source = ScriptedSource<EditBenchItem> { _ in Page(items: items, olderCursor: nil) }
        let policy = FeedPolicy(refreshOnOpen: .never, windowSize: 1_000, firstScreenRows: 1_000)
        let feed = try store.feed("edit", source: source, policy: policy)
        await feed.refresh()
        guard await feed.snapshot.rows.count == EditBench.rows else {
            throw BenchFailure("the edit feed did not load its \(EditBench.rows) rows")
        }
        await store.outbox.register(EditBenchItem.kind, as: EditBenchItem.Argument.self) { _ in .confirmed }
        let observer = await EditLatencyObserver(feed) { $0.revision }
        var latencies: [Double] = []
        for number in 0..<EditBench.edits {
            let row = number % EditBench.rows
            let id = "e\(row)"
            let revision = number / EditBench.rows + 1
            let started = BenchClock.wall()
            observer.expect(row: row, revision: revision)
            if setup == "enqueue" {
                try await feed.enqueue(EditBenchItem.kind, id: id, argument: EditBenchItem.Argument(revision: revision))
                {
                    $0.revision = revision
                }
            } else {
                try await feed.edit(id: id, { $0.revision = revision }, commit: { _ in })
            }
            if let shown = await observer.shown(within: EditBench.patience) { latencies.append(shown - started) }
        }
        observer.stop()
        let missed = EditBench.edits - latencies.count
        print(
            "EDIT impl=pagedstore setup=\(setup) rows=\(EditBench.rows) edits=\(EditBench.edits) missed=\(missed) "
                + "\(BenchClock.latencyFields(latencies)) goal_p99_us=\(EditBench.goalMilliseconds * 1000)")
        store.close()
    }
}

/// The item of the edit benchmark: a row whose revision each edit raises.
struct EditBenchItem: FeedItem, Codable {
    /// The kind its queued edits are made with.
    static let kind = "revise"

    /// A queued edit's argument: the new revision.
    struct Argument: Codable, Sendable {
        let revision: Int
    }

    let id: String
    var revision: Int
}

/// The item of the `shared` set-up: the same rows, one item across the feeds holding them.
struct SharedEditBenchItem: FeedItem, Codable {
    static let sharedItemType: String? = "edit"
    let id: String
    var revision: Int
}

/// Watches a feed's snapshots as a list would and notes when the expected row shows the expected
/// revision.
final class EditLatencyObserver<Item: FeedItem>: @unchecked Sendable {
    // @unchecked: `expected` is guarded by `lock`; the stream, task and feed are set once in init.
    private let lock = NSLock()
    private var expected: (row: Int, revision: Int)?
    private let shownTimes: AsyncStream<Double>
    private let shownContinuation: AsyncStream<Double>.Continuation
    private var task: Task<Void, Never>?
    /// Held as a list holds its feed: a feed nobody holds goes away, and its snapshots end.
    private let feed: Feed<Item>
    private let revision: @Sendable (Item) -> Int

    /// Starts observing `feed` from its current snapshot; `revision` reads an item's revision.
    init(_ feed: Feed<Item>, revision: @escaping @Sendable (Item) -> Int) async {
        self.feed = feed
        self.revision = revision
        (shownTimes, shownContinuation) = AsyncStream.makeStream(of: Double.self, bufferingPolicy: .bufferingNewest(1))
        let stream = await feed.snapshots
        task = Task { [weak self] in
            for await snapshot in stream { self?.record(snapshot) }
        }
    }

    /// The next edit: `row` is to show `revision`.
    func expect(row: Int, revision: Int) {
        lock.withLock { expected = (row, revision) }
    }

    /// The arrival time is read first: scanning the snapshot is the list's work, not the edit's.
    private func record(_ snapshot: FeedSnapshot<Item>) {
        let arrived = BenchClock.wall()
        let shown = lock.withLock { () -> Bool in
            guard let expected, let item = snapshot.rows[expected.row], revision(item) == expected.revision else {
                return false
            }
            self.expected = nil
            return true
        }
        if shown { shownContinuation.yield(arrived) }
    }

    /// When the expected edit showed, or nil when it did not within `seconds`.
    func shown(within seconds: Double) async -> Double? {
        let timeout = Task { [shownContinuation] in
            // Only the benchmark's patience for a lost edit: the times come from the snapshots.
            try? await Task.sleep(for: .seconds(seconds))
            if !Task.isCancelled { shownContinuation.yield(-1) }
        }
        defer { timeout.cancel() }
        for await time in shownTimes {
            return time >= 0 ? time : nil
        }
        return nil
    }

    /// Stops observing: the list goes away.
    func stop() {
        task?.cancel()
        shownContinuation.finish()
    }

    deinit { task?.cancel() }
}
