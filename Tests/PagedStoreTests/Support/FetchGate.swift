import Foundation

/// Holds one fetch of a responder-driven source after it has read the server, until the test lets it
/// go: "the server changed while this response was on its way", ordered by events, not by sleeps.
///
/// ```swift
/// gate.arm()
/// let next = Task {
///     await feed.loadNextPage()                  // its responder calls `await gate.pass()`
///     gate.finished()                            // no fetch at all (the feed had no cursor)
/// }
/// if await gate.arrival() {                      // the page was read from the server
///     server.publish(50); await feed.refresh()   // the world moves on
/// }
/// gate.release()                                 // and the old answer lands now
/// await next.value
/// ```
final class FetchGate: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`.
    private let lock = NSLock()
    private var armed = false
    private var arrived = false
    private var released = false
    private var finishedWithoutFetch = false
    private var arrivalWaiter: CheckedContinuation<Bool, Never>?
    private var held: CheckedContinuation<Void, Never>?

    /// Holds the next fetch that calls ``pass()``.
    func arm() {
        lock.withLock { (armed, arrived, released, finishedWithoutFetch) = (true, false, false, false) }
    }

    /// Called by the responder once it has read the server: waits while the gate holds this fetch.
    func pass() async {
        let holds = lock.withLock { () -> Bool in
            guard armed else { return false }
            armed = false
            arrived = true
            arrivalWaiter?.resume(returning: true)
            arrivalWaiter = nil
            return !released
        }
        guard holds else { return }
        await withCheckedContinuation { continuation in
            let go = lock.withLock { () -> Bool in
                if released { return true }
                held = continuation
                return false
            }
            if go { continuation.resume() }
        }
    }

    /// Waits until the held fetch has read the server: true; or until the operation that was to fetch
    /// ended without fetching (see ``finished()``): false.
    func arrival() async -> Bool {
        await withCheckedContinuation { continuation in
            let now = lock.withLock { () -> Bool? in
                if arrived { return true }
                if finishedWithoutFetch { return false }
                arrivalWaiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Called when the operation that was to fetch has returned: if no fetch arrived, the gate stops
    /// waiting for one.
    func finished() {
        let waiter = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            guard !arrived else { return nil }
            armed = false
            finishedWithoutFetch = true
            defer { arrivalWaiter = nil }
            return arrivalWaiter
        }
        waiter?.resume(returning: false)
    }

    /// Lets the held fetch answer (or the next one pass, when none arrived).
    func release() {
        let continuation = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            released = true
            armed = false
            defer { held = nil }
            return held
        }
        continuation?.resume()
    }
}
