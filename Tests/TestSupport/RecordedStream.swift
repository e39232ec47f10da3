import Foundation

/// Every element of a stream, in order, and waits for the elements to reach a condition: the
/// shared part of ``SnapshotRecorder``, ``EventRecorder`` and ``StreamRecorder``.
final class RecordedStream<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `recorded`, `ended` and `waiters` are guarded by `lock`.
    private let lock = NSLock()
    private var recorded: [Element] = []
    private var ended = false
    private var waiters: [(id: Int, ready: ([Element]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    private var lastWaiter = 0
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

    /// The elements so far, once `ready` holds for them, the stream ended or the waiting task is
    /// cancelled (a test past its time limit ends instead of waiting forever).
    func elements(once ready: @escaping ([Element]) -> Bool) async -> [Element] {
        let id = lock.withLock {
            lastWaiter += 1
            return lastWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock {
                    if ended || Task.isCancelled || ready(recorded) { return true }
                    waiters.append((id, ready, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
        return lock.withLock { recorded }
    }

    deinit { task?.cancel() }
}
