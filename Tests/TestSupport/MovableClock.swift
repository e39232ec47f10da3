import Foundation
package import PagedStore

/// A store's clock that a test moves on: the system's time plus an offset that only grows. Moving it
/// makes an age pass and ends every wait it reaches at once, so a test never sleeps for the store; a
/// wait it does not reach still ends in real time, as with the system's clock.
///
/// A clock made ``standingStill()`` does not follow the system's time: it reads the time it was made
/// at plus the offset, and its waits end only when the test moves it. A test that asserts what does
/// not happen while "the clock stands still" needs it, since a machine under load can let the few
/// seconds of a real-time wait pass between two of its steps.
public final class MovableClock: Sendable {
    private struct Waiter {
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var offset = Duration.zero
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let state = Locked(State())
    /// The instant and date the clock stands at before its offset, when it does not follow the
    /// system's time.
    private let stoppedAt: (instant: ContinuousClock.Instant, date: Date)?

    /// A clock at the system's time.
    public init() { stoppedAt = nil }

    private init(stoppedAt: (instant: ContinuousClock.Instant, date: Date)) { self.stoppedAt = stoppedAt }

    /// A clock at the system's time now that moves only when the test moves it.
    public static func standingStill() -> MovableClock { MovableClock(stoppedAt: (.now, Date())) }

    /// The clock's time: the system's, or the time it stands at, plus the offset.
    private func now(offset: Duration) -> ContinuousClock.Instant { (stoppedAt?.instant ?? .now) + offset }

    /// How far the clock is ahead of the system's.
    public var offset: Duration { state.value.offset }

    /// The clock to open a store with.
    package var storeClock: StoreClock {
        StoreClock(
            date: { [self] in (stoppedAt?.date ?? Date()).addingTimeInterval(offset.seconds) },
            now: { [self] in now(offset: offset) },
            sleep: { [self] deadline in try await sleep(until: deadline) })
    }

    /// Moves the clock on by `duration`, and ends the waits that reach their deadline.
    public func advance(by duration: Duration) {
        let due = state.mutate { state in
            state.offset += max(duration, .zero)
            let reached = now(offset: state.offset)
            let due = state.waiters.filter { $0.value.deadline <= reached }
            for id in due.keys { state.waiters[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Waits until the clock reaches `deadline`: by real time, or by ``advance(by:)``, whichever
    /// comes first (only by ``advance(by:)`` when it stands still). Throws `CancellationError` when
    /// the task is cancelled, as `Task.sleep` does.
    private func sleep(until deadline: ContinuousClock.Instant) async throws {
        if stoppedAt != nil { return try await moved(past: deadline) }
        // The offset only grows: the real deadline at the current offset is the latest one.
        let realDeadline = deadline - offset
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Task.sleep(until: realDeadline, clock: .continuous) }
            group.addTask { [self] in try await moved(past: deadline) }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Returns once ``advance(by:)`` moves the clock to `deadline`; throws when cancelled first.
    private func moved(past deadline: ContinuousClock.Instant) async throws {
        let id = state.mutate { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let passed = state.mutate { state in
                    guard !Task.isCancelled, now(offset: state.offset) < deadline else { return true }
                    state.waiters[id] = Waiter(deadline: deadline, continuation: continuation)
                    return false
                }
                if passed { continuation.resume() }
            }
        } onCancel: {
            state.mutate { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
        try Task.checkCancellation()
    }
}

extension Duration {
    /// The duration in seconds, for `Date` arithmetic.
    fileprivate var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
