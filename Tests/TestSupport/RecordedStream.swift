import Foundation

/// Every element of a stream, in order, and waits for the elements to reach a condition: the
/// shared part of ``SnapshotRecorder`` and ``EventRecorder``.
final class RecordedStream<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `recorded`, `ended` and `waiters` are guarded by `lock`.
    private let lock = NSLock()
    private var recorded: [Element] = []
    private var ended = false
    private var waiters: [(ready: ([Element]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    private var task: Task<Void, Never>?

    /// Starts recording `stream`.
    init(_ stream: AsyncStream<Element>) {
        task = Task { [weak self] in
            for await element in stream { self?.append(element) }
            self?.finish()
        }
    }

    private func append(_ element: Element) {
        let ready = lock.withLock {
            recorded.append(element)
            let ready = waiters.filter { $0.ready(recorded) }
            waiters.removeAll { $0.ready(recorded) }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// The stream ended: nothing more will come for anyone waiting.
    private func finish() {
        let waiting = lock.withLock {
            ended = true
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in waiting { waiter.continuation.resume() }
    }

    /// The elements so far, once `ready` holds for them (or the stream ended).
    func elements(once ready: @escaping ([Element]) -> Bool) async -> [Element] {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock {
                if ended || ready(recorded) { return true }
                waiters.append((ready, continuation))
                return false
            }
            if now { continuation.resume() }
        }
        return lock.withLock { recorded }
    }

    deinit { task?.cancel() }
}
