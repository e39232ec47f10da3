import Foundation

/// The serial executor that a store's feeds run on: a thread of its own, outside Swift's
/// cooperative pool and outside libdispatch's worker pool.
///
/// SQLite calls block. A write may wait up to the busy timeout for another process's lock, and
/// Swift's cooperative pool has one thread per core: a few feeds waiting there would stall every
/// other task of the app. A dispatch queue is not enough either: its jobs run on libdispatch's
/// workers, and on a two-core machine two stores waiting for a lock delayed a third store's work by
/// more than half a second. Feeds (actors) use this executor as theirs, so their SQLite work and
/// their bookkeeping run on one dedicated thread per store, one job at a time, as GRDB's serialized
/// database queue does.
final class StorageExecutor: SerialExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `started` and `stopped` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var started = false
    private var stopped = false
    private let label: String

    /// Creates the executor; its thread starts with the first job, so a store that no feed uses
    /// (`pagedb` reading a file, a cold first screen) never pays for one.
    init(label: String) {
        self.label = label
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = label
            thread.qualityOfService = .userInitiated
            thread.stackSize = 4 << 20
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Ends the thread once the jobs already enqueued have run. The store calls it when it goes
    /// away: no feed is left then, so no job can arrive later.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    /// Spins briefly before the thread sleeps: a feed's next job (the answer of the fetch it just
    /// started, the caller's next call) usually arrives within microseconds, and waking a sleeping
    /// thread costs tens of them on every hop.
    private func awaitNextJob() {
        let deadline = ContinuousClock.now.advanced(by: .microseconds(50))
        while ContinuousClock.now < deadline {
            condition.lock()
            let ready = !jobs.isEmpty || stopped
            condition.unlock()
            if ready { return }
            Thread.sleep(forTimeInterval: 0)
        }
    }

    /// The thread's loop: takes every waiting job at once and runs them in order.
    private func run() {
        let executor = asUnownedSerialExecutor()
        var batch: [UnownedJob] = []
        while true {
            awaitNextJob()
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
