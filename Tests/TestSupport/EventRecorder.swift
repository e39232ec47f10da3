import Foundation

@testable public import PagedStore

/// Records every event a feed reports, in order, from the moment it is made.
public final class EventRecorder: @unchecked Sendable {
    // @unchecked: `recorded` and `waiters` are guarded by `lock`.
    private let lock = NSLock()
    private var recorded: [FeedEvent] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private let sentBefore: Int
    private var task: Task<Void, Never>?

    /// Starts recording `feed`'s events.
    public init<Item: FeedItem>(_ feed: Feed<Item>) async {
        let (stream, sentBefore) = await feed.countedEvents()
        self.sentBefore = sentBefore
        task = Task { [weak self] in
            for await event in stream { self?.append(event) }
            self?.finish()
        }
    }

    private func append(_ event: FeedEvent) {
        let ready = lock.withLock {
            recorded.append(event)
            let count = recorded.count
            let ready = waiters.filter { $0.count <= count }
            waiters.removeAll { $0.count <= count }
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

    /// The events so far, once the stream has delivered every event `feed` sent until now.
    public func events<Item: FeedItem>(settlingOn feed: Feed<Item>) async -> [FeedEvent] {
        let count = await feed.eventsSent - sentBefore
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let delivered = lock.withLock {
                if recorded.count >= count { return true }
                waiters.append((count, continuation))
                return false
            }
            if delivered { continuation.resume() }
        }
        return lock.withLock { recorded }
    }

    deinit { task?.cancel() }
}
