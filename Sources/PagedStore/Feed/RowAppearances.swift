import Foundation

/// The rows that appeared, queued in the order a UIKit data source reported them, for one task to
/// hand to the feed one by one (see ``Feed/enqueueRowDidAppear(_:)``).
///
/// `Task { await feed.rowDidAppear(row) }` from `cellForRow` starts one task per row, and tasks do not
/// run in the order they were created: the window could end up around a row scrolled past long ago.
final class RowAppearances<Item: FeedItem>: @unchecked Sendable {
    // @unchecked: `consumer`, `enqueued`, `handled` and `drainWaiters` are only touched with `lock`
    // held; the stream and its continuation are Sendable.
    private let lock = NSLock()
    private let stream: AsyncStream<Int>
    private let continuation: AsyncStream<Int>.Continuation
    private var consumer: Task<Void, Never>?
    private var enqueued = 0
    private var handled = 0
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    }

    deinit {
        continuation.finish()
        consumer?.cancel()
    }

    /// Queues `row`; the first call starts the task that delivers rows to `feed`, holding it weakly
    /// so a feed that goes away is not kept alive by its queue.
    func enqueue(_ row: Int, for feed: Feed<Item>) {
        lock.withLock {
            enqueued += 1
            if consumer == nil {
                let stream = self.stream
                consumer = Task { [weak feed, weak self] in
                    for await row in stream {
                        guard let feed else { return }
                        await feed.rowDidAppear(row)
                        self?.handledOne()
                    }
                }
            }
            continuation.yield(row)
        }
    }

    private func handledOne() {
        let waiters = lock.withLock {
            handled += 1
            guard handled == enqueued else { return [CheckedContinuation<Void, Never>]() }
            defer { drainWaiters = [] }
            return drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once every row queued so far was handed to the feed.
    func drained() async {
        await withCheckedContinuation { continuation in
            let drained = lock.withLock {
                if handled == enqueued { return true }
                drainWaiters.append(continuation)
                return false
            }
            if drained { continuation.resume() }
        }
    }
}

extension Feed {
    /// Tells the feed that `row` became visible, from synchronous code such as UIKit's
    /// `tableView(_:cellForRowAt:)` or `collectionView(_:willDisplay:forItemAt:)`: it returns at once,
    /// and the rows reach ``rowDidAppear(_:)`` one at a time, in the order they were enqueued.
    ///
    /// Use it instead of `Task { await feed.rowDidAppear(row) }`, whose tasks may run out of order and
    /// leave the loaded window around a row the user scrolled past. From async code (SwiftUI's
    /// `.task`, tests), `await feed.rowDidAppear(row)` is direct; ``FeedModel/rowDidAppear(_:)`` calls
    /// this one.
    ///
    /// ```swift
    /// func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
    ///     if let row = snapshot.row(at: indexPath) { feed.enqueueRowDidAppear(row) }
    ///     …
    /// }
    /// ```
    public nonisolated func enqueueRowDidAppear(_ row: Int) {
        appearances.enqueue(row, for: self)
    }

    /// Returns once every row enqueued by ``enqueueRowDidAppear(_:)`` so far was handled.
    package nonisolated func appearancesHandled() async { await appearances.drained() }
}
