public import Foundation

/// Runs `body`, which blocks (waits for a process to exit, reads a pipe to its end, sleeps between
/// the steps of a race), on one of the threads kept for blocking work, and waits for it without
/// holding a thread of Swift's pool.
///
/// Swift concurrency runs every test on a pool with one thread per core: a test that blocks one of
/// them stops every other test that needs it. On this machine's two cores, two tests waiting for a
/// `pagedb` process stalled the rest of the suite for minutes, and tests whose work was a second
/// ran past their time limits.
public func offThePool<Value: Sendable>(
    _ body: @escaping @Sendable () throws -> Value
) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        BlockingThreads.shared.run { continuation.resume(with: Result { try body() }) }
    }
}

/// ``offThePool(_:)`` for a body that cannot fail.
public func offThePool<Value: Sendable>(_ body: @escaping @Sendable () -> Value) async -> Value {
    await withCheckedContinuation { continuation in
        BlockingThreads.shared.run { continuation.resume(returning: body()) }
    }
}

/// Threads that live as long as the test process and run blocking work in turn.
///
/// Long-lived rather than one thread per call: Foundation's `Process` ties each child to the run
/// loop of the thread that started it, and a thread that ends under a child still tied to it has
/// crashed a later `Process.run()` (a segfault, rarely, under load).
final class BlockingThreads: @unchecked Sendable {
    // @unchecked: `waiting` is only touched with `condition` locked.
    static let shared = BlockingThreads(count: 64)
    private let condition = NSCondition()
    private var waiting: [@Sendable () -> Void] = []

    private init(count: Int) {
        for _ in 0..<count {
            Thread.detachNewThread { [self] in
                while true { take()() }
            }
        }
    }

    /// Runs `work` on the first thread that is free.
    func run(_ work: @escaping @Sendable () -> Void) {
        condition.withLock {
            waiting.append(work)
            condition.signal()
        }
    }

    private func take() -> @Sendable () -> Void {
        condition.withLock {
            while waiting.isEmpty { condition.wait() }
            return waiting.removeFirst()
        }
    }
}

extension Process {
    /// Waits for the process to end without holding a thread of the test pool.
    public func ended() async {
        await offThePool { self.waitUntilExit() }
    }
}

/// One start of a child process at a time in the test process.
private let startingAChild = NSLock()

extension Process {
    /// Starts the process, one start at a time across the tests: Foundation's start of a child on
    /// Linux registers it with a shared monitor, and the suite, starting many at once from threads of
    /// its own, has crashed inside `run()` (a segfault, rarely, under load). The child then runs in
    /// parallel with the others as before; only the start is serial.
    public func start() throws {
        try startingAChild.withLock { try run() }
    }
}
