import Foundation
public import PagedStore

/// Records every snapshot a feed emits, in order.
public final class SnapshotRecorder<Item: FeedItem>: @unchecked Sendable {
    // @unchecked: `recorded` and `waiters` are guarded by `lock`.
    private let lock = NSLock()
    private var recorded: [FeedSnapshot<Item>] = []
    private var waiters: [(sequence: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var task: Task<Void, Never>?

    /// Starts recording `feed`'s snapshots, from its current one.
    public init(_ feed: Feed<Item>) async {
        let stream = await feed.snapshots
        task = Task { [weak self] in
            for await snapshot in stream { self?.append(snapshot) }
            self?.finish()
        }
    }

    private func append(_ snapshot: FeedSnapshot<Item>) {
        let ready = lock.withLock {
            recorded.append(snapshot)
            let ready = waiters.filter { $0.sequence <= snapshot.sequence }
            waiters.removeAll { $0.sequence <= snapshot.sequence }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// The stream ended: nothing more will come for anyone waiting.
    private func finish() {
        let waiting = lock.withLock {
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in waiting { waiter.continuation.resume() }
    }

    /// The snapshots so far, once the stream has delivered the feed's current one.
    public func snapshots(settlingOn feed: Feed<Item>) async -> [FeedSnapshot<Item>] {
        let sequence = await feed.snapshot.sequence
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let delivered = lock.withLock {
                if let last = recorded.last, last.sequence >= sequence { return true }
                waiters.append((sequence, continuation))
                return false
            }
            if delivered { continuation.resume() }
        }
        return lock.withLock { recorded }
    }

    deinit { task?.cancel() }
}
