import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The clock tests move on instead of sleeping: its waits end when it is moved past them, in real
/// time otherwise, and when their task is cancelled.
@Suite(.limit(minutes: 1)) struct MovableClockTests {
    @Test func movingTheClockPastAWaitEndsIt() async throws {
        let clock = MovableClock()
        let store = clock.storeClock
        let deadline = store.now() + .seconds(3_600)
        async let waited: Void = store.sleep(deadline)
        clock.advance(by: .seconds(3_600))
        try await waited
        #expect(store.now() >= deadline)
        #expect(store.date().timeIntervalSinceNow >= 3_599)
    }

    @Test func aWaitTheClockIsNotMovedPastEndsInRealTime() async throws {
        let store = MovableClock().storeClock
        let started = ContinuousClock.now
        try await store.sleep(store.now() + .milliseconds(20))
        #expect(ContinuousClock.now - started >= .milliseconds(20))
    }

    @Test func aCancelledWaitThrows() async {
        let store = MovableClock().storeClock
        let waiting = Task { try await store.sleep(store.now() + .seconds(3_600)) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }
}
