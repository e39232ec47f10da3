import Dispatch

/// The serial executor that a store's feeds run on: a dispatch queue of its own, outside Swift's
/// cooperative thread pool.
///
/// SQLite calls block. A write may wait up to the busy timeout for another process's lock, and
/// Swift's cooperative pool has one thread per core: a few feeds waiting there would stall every
/// other task of the app. Feeds (actors) use this executor as theirs, so their SQLite work and their
/// bookkeeping run on this queue, one job at a time, as GRDB's serialized database queue does.
final class StorageExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
