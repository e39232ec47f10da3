import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A store clock that counts the waits a store asks for (each wake of its outbox is one).
final class CountingClock: Sendable {
    let base: MovableClock
    let sleeps = Locked(0)
    let woken = Locked(0)
    init(_ base: MovableClock) { self.base = base }
    var storeClock: StoreClock {
        let inner = base.storeClock
        return StoreClock(
            date: inner.date, now: inner.now,
            sleep: { [sleeps, woken] deadline in
                sleeps.mutate { $0 += 1 }
                try await inner.sleep(deadline)
                woken.mutate { $0 += 1 }
            })
    }
}

/// An observed outbox wakes when an edit's phase changes with no write, and only then: never in a
/// loop, never after its store closed, never sending an edit twice.
@Suite(.limit(minutes: 2)) struct ObservedOutboxWakesTests {
    let test: FeedTestCase
    let list = ModelServer(.posts("p", 4), pageSize: 10)
    init() throws { test = try FeedTestCase() }

    /// Lets other tasks run many times over, with no clock moving.
    func settle() async {
        for _ in 0..<2000 { await Task.yield() }
    }

    /// A read-only badge of an edit another live store of this process sends (its lease holds for
    /// minutes): it wakes every lease look at most, never in a loop while the clock stands still.
    @Test func aLeaseFarAheadDoesNotMakeTheBadgeSpin() async throws {
        let app = try test.store()
        let feed = try test.feed(list.source, store: app)
        await feed.refresh()
        let gate = FetchGate()
        gate.arm()
        await app.outbox.register("revise", as: Revision.self) { _ in
            await gate.pass()
            return .confirmed
        }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        #expect(await gate.arrival())
        // Standing still: a lease look of real time would pass between two steps on a loaded machine.
        let still = MovableClock.standingStill()
        let counting = CountingClock(still)
        let widget = try FeedStore(path: test.path, readOnly: true, clock: counting.storeClock)
        let badge = await OutboxStatusLog(widget.outbox)
        await badge.waitFor { $0.edits.first?.phase == .sending }
        await settle()
        let before = counting.woken.value
        await settle()
        #expect(counting.woken.value == before, "woke with the clock standing still")
        // Ten lease looks: at most one wake each.
        for _ in 0..<10 {
            still.advance(by: .seconds(5))
            await settle()
        }
        #expect(counting.woken.value - before <= 12)
        #expect(await widget.outbox.status.edits.first?.phase == .sending)
        gate.release()
        await badge.waitFor { $0.count == 0 }
    }

    /// The app store sending the edit closes while its handler runs; the handler answers, and the
    /// outcome cannot be written (the store is closed): the lease now holds for no one, with no write
    /// to say so. The widget's badge says "waiting" within a lease look.
    @Test func aBadgeFollowsTheLeaseOfAStoreThatClosedMidSend() async throws {
        let app = try test.store()
        let feed = try test.feed(list.source, store: app)
        await feed.refresh()
        let gate = FetchGate()
        gate.arm()
        let answered = Locked(false)
        await app.outbox.register("revise", as: Revision.self) { _ in
            await gate.pass()
            answered.value = true
            return .confirmed
        }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        #expect(await gate.arrival())
        let widget = try FeedStore(path: test.path, readOnly: true, clock: test.clock.storeClock)
        let badge = await OutboxStatusLog(widget.outbox)
        await badge.waitFor { $0.edits.first?.phase == .sending }
        app.close()
        gate.release()
        while !answered.value { await Task.yield() }
        await settle()
        test.clock.advance(by: .seconds(6))
        await badge.waitFor { $0.edits.first?.phase == .waiting }
        #expect(await widget.outbox.status.count == 1)
    }

    /// A closed observed store asks for no wake, and a wake set before it closed does nothing.
    @Test func aClosedBadgeStopsWaking() async throws {
        let app = try FeedStore(path: test.path, clock: MovableClock().storeClock)
        let feed = try test.feed(list.source, store: app)
        await feed.refresh()
        let counting = CountingClock(test.clock)
        let widget = try FeedStore(path: test.path, clock: counting.storeClock)
        let badge = await OutboxStatusLog(widget.outbox)
        await app.outbox.register("revise", as: Revision.self) { _ in .retryable("HTTP 429", retryAfterHeader: "60") }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        await badge.waitFor { $0.edits.first?.phase == .retryingLater }
        widget.close()
        await settle()
        let (sleeps, woken) = (counting.sleeps.value, counting.woken.value)
        test.clock.advance(by: .seconds(61))
        await settle()
        test.clock.advance(by: .seconds(400))
        await settle()
        #expect(counting.sleeps.value == sleeps, "a closed store asked for another wake")
        #expect(counting.woken.value <= woken + 1)
    }

    /// Two stores with a handler for the kind, both observed: the extra wakes must not send an edit
    /// twice per attempt.
    @Test func twoObservedHandlerStoresSendEachAttemptOnce() async throws {
        let first = try test.store()
        let second = try test.store()
        let feed = try test.feed(list.source, store: first)
        await feed.refresh()
        let sends = Locked([UUID: Int]())
        let handler: @Sendable (OutboxEdit<Revision>) async throws -> OutboxOutcome = { edit in
            let count = sends.mutate { sends in
                sends[edit.idempotencyKey, default: 0] += 1
                return sends[edit.idempotencyKey]!
            }
            return count == 1 ? .retryable("HTTP 429", retryAfterHeader: "30") : .confirmed
        }
        let badge1 = await OutboxStatusLog(first.outbox)
        let badge2 = await OutboxStatusLog(second.outbox)
        await first.outbox.register("revise", as: Revision.self, handler)
        await second.outbox.register("revise", as: Revision.self, handler)
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        await badge1.waitFor { $0.edits.first?.attempts == 1 }
        await badge2.waitFor { $0.edits.first?.phase == .retryingLater }
        for _ in 0..<8 {
            test.clock.advance(by: .seconds(5))
            await settle()
        }
        await badge1.waitFor { $0.count == 0 }
        await badge2.waitFor { $0.count == 0 }
        await settle()
        #expect(sends.value.values.sorted() == [2], "sends per key: \(sends.value)")
    }

    /// The observers go, then one comes back: the returning badge still learns of a wait ending.
    @Test func observersThatLeftAndCameBackStillFollowAWaitEnding() async throws {
        let app = try FeedStore(path: test.path, clock: MovableClock().storeClock)
        let feed = try test.feed(list.source, store: app)
        await feed.refresh()
        let widget = try FeedStore(path: test.path, readOnly: true, clock: test.clock.storeClock)
        do {
            let states = await widget.outbox.states
            var iterator = states.makeAsyncIterator()
            _ = await iterator.next()
        }
        await settle()
        await app.outbox.register("revise", as: Revision.self) { _ in .retryable("HTTP 429", retryAfterHeader: "60") }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        let badge = await OutboxStatusLog(widget.outbox)
        await badge.waitFor { $0.edits.first?.phase == .retryingLater }
        test.clock.advance(by: .seconds(61))
        await badge.waitFor { $0.edits.first?.phase == .waiting }
    }
}
