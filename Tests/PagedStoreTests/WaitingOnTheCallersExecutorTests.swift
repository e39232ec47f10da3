import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// A feed's waits (a fetch's answer, a shared next page) run on the feed's own executor: an answer
/// that is there before the wait (a source that answered without suspending) costs the feed no
/// job, where a wait through the global pool costs one to come back. Counted in jobs, not timed.
@Suite(.limit()) struct WaitingOnTheCallersExecutorTests {
    @Test func anAnswerGivenBeforeTheWaitIsTakenWithoutAJob() async throws {
        let waiter = Waiter()
        let (value, jobs) = try await waiter.waitForAnAnswerGivenFirst()
        #expect(value == 7)
        #expect(jobs == 0)
    }

    @Test func aCancelledWaitEndsWithoutItsAnswer() async throws {
        let waiter = Waiter()
        let waiting = Task { try await waiter.waitUnanswered() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }
}

/// An actor on an executor that counts the jobs enqueued on it.
private actor Waiter {
    private let executor = CountingExecutor()

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Waits for an answer given before the wait.
    /// - Returns: The answer, and the jobs enqueued on this actor's executor meanwhile.
    func waitForAnAnswerGivenFirst() async throws -> (Int, Int) {
        let answer = FirstAnswer<Int>()
        let before = executor.jobs
        answer.give(.success(7))
        let value = try await answer.value()
        return (value, executor.jobs - before)
    }

    func waitUnanswered() async throws -> Int {
        try await FirstAnswer<Int>().value()
    }
}

/// A serial executor on a dispatch queue that counts its jobs.
private final class CountingExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: `count` is only touched with `lock` held.
    private let queue = DispatchQueue(label: "CountingExecutor")
    private let lock = NSLock()
    private var count = 0

    var jobs: Int { lock.withLock { count } }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        lock.withLock { count += 1 }
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
