import Foundation

/// The session's delegate queue, bounded: at most `capacity` callbacks wait to run.
///
/// FoundationNetworking on Linux hands every chunk of a body to the delegate queue as an operation,
/// from the thread that reads the socket, and never waits for the queue: a fast server (or a gzip
/// bomb inflating at a gigabyte a second) queues the whole body in memory before the delegate sees
/// enough of it to stop. Blocking `addOperation` while the queue is full blocks that reading thread,
/// so TCP itself slows the server down and memory stays near `capacity` chunks (16 KiB each).
///
/// Delegate callbacks must never wait for the session's own queue (`task.cancel()` does): they hand
/// such calls to another queue, or the reader and the delegate would wait for each other.
final class HTTPDelegateQueue: OperationQueue, @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting = 0
    private let capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
        super.init()
        maxConcurrentOperationCount = 1
        name = "PagedStore.HTTPPageSource.delegate"
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        condition.lock()
        // A bounded wait: should anything go wrong, the queue degrades to unbounded, never to a hang.
        let giveUp = Date().addingTimeInterval(5)
        while waiting >= capacity, condition.wait(until: giveUp) {}
        waiting += 1
        condition.unlock()
        super.addOperation { [self] in
            condition.lock()
            waiting -= 1
            condition.signal()
            condition.unlock()
            block()
        }
    }
}
