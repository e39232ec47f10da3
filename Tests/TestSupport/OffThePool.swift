import Foundation

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

/// A few threads that live as long as the test process and run blocking work in turn.
///
/// Few, so that few children run at once: on two cores more only compete for them, and each holds
/// pipes; a test whose work waits for a free thread waits as it would for the cores.
final class BlockingThreads: @unchecked Sendable {
    // @unchecked: `waiting` is only touched with `condition` locked.
    static let shared = BlockingThreads(count: 6)
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

extension ChildProcess {
    /// Waits for the process to end without holding a thread of the test pool.
    public func ended() async {
        await offThePool { self.waitUntilExit() }
    }
}
