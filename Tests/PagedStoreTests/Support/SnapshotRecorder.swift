import Foundation
import PagedStore

/// Records every snapshot a feed emits, in order.
final class SnapshotRecorder: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var recorded: [FeedSnapshot<Post>] = []
    private var task: Task<Void, Never>?

    init(_ feed: Feed<Post>) async {
        let stream = await feed.snapshots
        task = Task { [weak self] in
            for await snapshot in stream { self?.append(snapshot) }
        }
    }

    private func append(_ snapshot: FeedSnapshot<Post>) { lock.withLock { recorded.append(snapshot) } }

    /// The snapshots so far, after letting the stream deliver what the feed emitted.
    func snapshots(settlingOn feed: Feed<Post>) async -> [FeedSnapshot<Post>] {
        let current = await feed.snapshot
        for _ in 0..<2000 {
            let snapshots = lock.withLock { recorded }
            if let last = snapshots.last, last.sequence == current.sequence {
                return snapshots
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return lock.withLock { recorded }
    }

    deinit { task?.cancel() }
}
