package import Foundation

/// The time as a store's drivers read it: one clock for the store, its feeds, its outbox and its
/// budget, so that a test moves time on instead of sleeping until an age passes or a backoff ends.
///
/// Two readings, because the store needs both: the wall clock for what the file keeps and another
/// process or a relaunch compares (when a page was fetched, when a queued edit may be sent again),
/// and the monotonic clock for what this process waits for (a refresh's backoff, a throttled save),
/// which a clock set back must not stretch. The SQLite layer's own busy waits stay on the system
/// clock: they wait for another process, not for an age.
package struct StoreClock: Sendable {
    /// The wall-clock time.
    package let date: @Sendable () -> Date
    /// The monotonic time.
    package let now: @Sendable () -> ContinuousClock.Instant
    /// Waits until the monotonic time reaches an instant; throws when the task is cancelled.
    package let sleep: @Sendable (_ until: ContinuousClock.Instant) async throws -> Void

    /// A clock made of its three readings.
    package init(
        date: @escaping @Sendable () -> Date, now: @escaping @Sendable () -> ContinuousClock.Instant,
        sleep: @escaping @Sendable (_ until: ContinuousClock.Instant) async throws -> Void
    ) {
        self.date = date
        self.now = now
        self.sleep = sleep
    }

    /// The system's clocks: what every store uses outside tests.
    package static let system = StoreClock(
        date: { Date() }, now: { .now }, sleep: { try await Task.sleep(until: $0, clock: .continuous) })
}
