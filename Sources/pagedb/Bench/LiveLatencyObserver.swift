import Foundation
import PagedStore

/// Watches a feed's snapshots as an app's list would and records, for every benchmark item that
/// appears on top, how long after its write began the snapshot showing it arrived.
final class LiveLatencyObserver: @unchecked Sendable {
    // @unchecked: `seen` and `latencies` are guarded by `lock`; the task and feed are set once in init.
    private let lock = NSLock()
    private var seen: Set<String> = []
    private var latencies: [(id: String, seconds: Double)] = []
    private var task: Task<Void, Never>?
    /// Held as a list holds its feed: a feed nobody holds goes away, and its snapshots end.
    private let feed: Feed<LiveBenchItem>

    /// Starts observing `feed` from its current snapshot; items it already shows are not counted.
    init(_ feed: Feed<LiveBenchItem>) async {
        self.feed = feed
        let stream = await feed.snapshots
        let current = await feed.snapshot
        seen = Set(current.rows.loadedRange.compactMap { current.rows.id(at: $0) })
        task = Task { [weak self] in
            for await snapshot in stream { self?.record(snapshot) }
        }
    }

    /// New items are inserted on top, so the unseen ones are the rows above the first seen one.
    private func record(_ snapshot: FeedSnapshot<LiveBenchItem>) {
        let arrived = LiveBenchItem.now()
        lock.withLock {
            for row in snapshot.rows.loadedRange {
                guard let item = snapshot.rows[row], !seen.contains(item.id) else { break }
                seen.insert(item.id)
                latencies.append((item.id, arrived - item.writtenAt))
            }
        }
    }

    /// The latencies so far, in seconds, by item id, in the order the items arrived.
    var recorded: [(id: String, seconds: Double)] { lock.withLock { latencies } }

    /// Waits until the item `id` has shown or `seconds` passed; returns whether it showed.
    /// Polls: the waiting only paces the writer, the times are taken by the snapshot stream's task.
    func waitUntilShown(_ id: String, within seconds: Double) async -> Bool {
        let deadline = BenchClock.wall() + seconds
        while !lock.withLock({ seen.contains(id) }) {
            guard BenchClock.wall() < deadline else { return false }
            try? await Task.sleep(for: .microseconds(200))
        }
        return true
    }

    /// Stops observing: the list goes away.
    func stop() { task?.cancel() }

    deinit { task?.cancel() }
}
