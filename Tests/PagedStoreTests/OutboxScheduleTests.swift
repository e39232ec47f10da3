import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The outbox's rules alone: what is sent next, what each outcome does, and when a failed send goes
/// again.
@Suite(.limit(minutes: 3)) struct OutboxScheduleTests {
    let now = ContinuousClock.now
    /// The wall-clock time at `now`.
    let date = Date()

    static func entry(
        _ item: String, feed: String = "home", kind: String = "like", attempts: Int = 0
    )
        -> OutboxSchedule
        .Entry
    {
        OutboxSchedule.Entry(
            item: .init(feedKey: feed, itemID: item), kind: kind, idempotencyKey: UUID(), attempts: attempts)
    }

    /// A schedule with `kinds` handled, that found `entries`.
    func schedule(
        _ entries: [OutboxSchedule.Entry], kinds: [String] = ["like"], readOnly: Bool = false
    ) -> (OutboxSchedule, [OutboxSchedule.Action]) {
        var schedule = OutboxSchedule()
        schedule.readOnly = readOnly
        for kind in kinds { _ = schedule.registered(kind, now: now) }
        let actions = schedule.found(entries, now: now, date: date)
        return (schedule, actions)
    }

    @Test func anEditAnotherStoreSendsWaitsWithItsItemsLaterEditsAndShowsAsSending() {
        let first = Self.entry("a")
        var later = Self.entry("a")
        later.idempotencyKey = UUID()
        var held = first
        held.sentElsewhereUntil = date.addingTimeInterval(60)
        var (schedule, actions) = schedule([held, later])
        #expect(actions == [.wake(after: OutboxSchedule.leaseLook)], "nothing of a is sent; a look again soon")
        #expect(schedule.phase(of: first.idempotencyKey, item: first.item, now: now) == .sending)
        // The lease ended (the other store settled it, or its process is gone): it goes here.
        #expect(schedule.found([first, later], now: now, date: date) == [.send(first)])
    }

    @Test func aSendThatFindsTheLeaseTakenWaitsForItAtMostALook() {
        let a = Self.entry("a")
        var (schedule, actions) = schedule([a])
        #expect(actions == [.send(a)])
        #expect(schedule.sentElsewhere(a, for: .seconds(120), now: now) == [.wake(after: OutboxSchedule.leaseLook)])
        #expect(schedule.woke(now: now + OutboxSchedule.leaseLook) == [.send(a)])
    }

    @Test func editsGoOldestFirstOncePerItemOnceTheirKindHasAHandler() {
        let (a, b, c) = (Self.entry("a"), Self.entry("b", kind: "post"), Self.entry("c", feed: "other"))
        var (schedule, actions) = schedule([a, b, c])
        #expect(actions == [.send(a), .send(c)], "no handler for b's kind; c's feed need not be open")
        #expect(schedule.registered("post", now: now) == [.send(b)])
        #expect(schedule.found([a, b, c], now: now, date: date).isEmpty, "nothing in flight is sent twice")
    }

    @Test func anItemsLaterEditWaitsForItsFirstToSettle() {
        let first = Self.entry("a")
        var second = Self.entry("a")
        second.kind = "like"
        var (schedule, actions) = schedule([first, second])
        #expect(actions == [.send(first)])
        #expect(schedule.finished(first, .confirmed, now: now) == [.confirm(first)], "the first is still settling")
        #expect(schedule.settled(first.idempotencyKey, written: true, now: now) == [.send(second)])
    }

    @Test func anItemsLaterEditWaitsWhileItsFirstIsRetriedOrItsOutcomeCouldNotBeWritten() {
        let (first, second) = (Self.entry("a"), Self.entry("a"))
        var (schedule, _) = schedule([first])
        // The later edit is queued while the first's failure is being written: a look meanwhile.
        _ = schedule.finished(first, .retryable(reason: "offline", retryAfter: nil), now: now)
        #expect(schedule.found([first, second], now: now, date: date).isEmpty)
        #expect(schedule.settled(first.idempotencyKey, written: true, now: now) == [.wake(after: .seconds(1))])
        var retried = first
        retried.attempts = 1
        #expect(schedule.woke(now: now + .seconds(1)) == [.send(retried)], "the first goes again, not the second")

        _ = schedule.finished(first, .confirmed, now: now)
        #expect(schedule.settled(first.idempotencyKey, written: false, now: now) == [.wake(after: .seconds(1))])
        #expect(schedule.woke(now: now + .seconds(1)) == [.send(first)], "still in the file: it goes again first")
        _ = schedule.finished(first, .confirmed, now: now)
        #expect(schedule.settled(first.idempotencyKey, written: true, now: now) == [.send(second)])
    }

    @Test func aLookWhileAFailureIsWrittenKeepsTheFailureCounted() {
        let edit = Self.entry("a")
        var (schedule, _) = schedule([edit])
        _ = schedule.finished(edit, .retryable(reason: "503", retryAfter: nil), now: now)
        _ = schedule.found([edit], now: now, date: date)  // the file does not have the count yet
        _ = schedule.settled(edit.idempotencyKey, written: true, now: now)
        var failed = edit
        failed.attempts = 1
        #expect(schedule.woke(now: now + .seconds(1)) == [.send(failed)], "sent as its second attempt")
    }

    @Test func anEditBeingSettledIsNotSentAgainWhileTheFileStillListsIt() {
        let edit = Self.entry("a")
        var (schedule, _) = schedule([edit])
        _ = schedule.finished(edit, .rejected(reason: "404"), now: now)
        #expect(schedule.found([edit], now: now, date: date).isEmpty)
        #expect(schedule.settled(edit.idempotencyKey, written: true, now: now).isEmpty)
        #expect(schedule.found([], now: now, date: date).isEmpty)
    }

    @Test func outcomesConfirmRollBackOrRecordTheFailure() {
        let (a, b, c) = (Self.entry("a"), Self.entry("b"), Self.entry("c"))
        var (schedule, _) = schedule([a, b, c])
        #expect(schedule.finished(a, .confirmed, now: now) == [.confirm(a)])
        #expect(schedule.finished(b, .rejected(reason: "409"), now: now) == [.rollBack(b, reason: "409")])
        #expect(
            schedule.finished(c, .retryable(reason: "503", retryAfter: nil), now: now) == [
                .recordFailure(c, reason: "503", after: .seconds(1))
            ])
        #expect(schedule.phase(of: c.idempotencyKey, item: c.item, now: now) == .sending)
        #expect(schedule.settled(c.idempotencyKey, written: true, now: now) == [.wake(after: .seconds(1))])
        #expect(schedule.phase(of: c.idempotencyKey, item: c.item, now: now) == .retryingLater)
    }

    @Test func aRetryableEditGoesAgainAfterItsDelayOrAtOnceOnResume() {
        let edit = Self.entry("a")
        var (schedule, _) = schedule([edit])
        _ = schedule.finished(edit, .retryable(reason: "429", retryAfter: .seconds(30)), now: now)
        #expect(schedule.settled(edit.idempotencyKey, written: true, now: now) == [.wake(after: .seconds(30))])
        var failed = edit
        failed.attempts = 1
        #expect(schedule.found([failed], now: now, date: date) == [.wake(after: .seconds(30))])
        #expect(schedule.woke(now: now + .seconds(29)) == [.wake(after: .seconds(1))])
        #expect(schedule.woke(now: now + .seconds(30)) == [.send(failed)])
        _ = schedule.finished(failed, .retryable(reason: "offline", retryAfter: nil), now: now)
        _ = schedule.settled(edit.idempotencyKey, written: true, now: now)
        #expect(schedule.resumed(now: now).count == 1, "connectivity back: it goes at once")
    }

    @Test func backoffDoublesFromTheFirstDelayUpToTheMaximumAndRetryAfterWins() {
        let retry = OutboxSchedule.Retry(firstDelay: .seconds(1), maximumDelay: .seconds(60))
        #expect(
            (1...8).map { retry.delay(afterFailures: $0, retryAfter: nil) }
                == [1, 2, 4, 8, 16, 32, 60, 60].map {
                    Duration.seconds($0)
                })
        #expect(retry.delay(afterFailures: Int.max, retryAfter: nil) == .seconds(60))
        #expect(retry.delay(afterFailures: Int.min, retryAfter: nil) == .seconds(1))
        #expect(retry.delay(afterFailures: 1, retryAfter: .seconds(7)) == .seconds(7))
        #expect(retry.delay(afterFailures: 1, retryAfter: .seconds(600)) == .seconds(60))
        #expect(retry.delay(afterFailures: 1, retryAfter: .seconds(-5)) == .zero)
    }

    @Test func anEditTheFileNoLongerListsIsForgottenAndNeverSentAgain() {
        let edit = Self.entry("a")
        var (schedule, _) = schedule([edit])
        #expect(schedule.found([], now: now, date: date).isEmpty)
        _ = schedule.finished(edit, .retryable(reason: "gone", retryAfter: nil), now: now)
        _ = schedule.settled(edit.idempotencyKey, written: true, now: now)
        #expect(schedule.found([], now: now, date: date).isEmpty)
        #expect(schedule.resumed(now: now).isEmpty)
    }

    @Test func anOutcomeThatCouldNotBeWrittenWaitsAndGoesAgain() {
        let edit = Self.entry("a")
        var (schedule, _) = schedule([edit])
        _ = schedule.finished(edit, .confirmed, now: now)
        #expect(schedule.settled(edit.idempotencyKey, written: false, now: now) == [.wake(after: .seconds(1))])
        #expect(schedule.found([edit], now: now, date: date) == [.wake(after: .seconds(1))])
        #expect(schedule.woke(now: now + .seconds(1)) == [.send(edit)])
    }

    @Test func aReadOnlyStoreSendsNothingButSaysWhatWaits() {
        let edit = Self.entry("a")
        var (schedule, actions) = schedule([edit], readOnly: true)
        #expect(actions.isEmpty)
        #expect(schedule.resumed(now: now).isEmpty)
        #expect(schedule.registered("like", now: now).isEmpty)
        #expect(schedule.phase(of: edit.idempotencyKey, item: edit.item, now: now) == .waiting)
    }

    /// A widget's badge: the store sends none of these edits, yet its observers learn when a lease
    /// or a wait ends, with no write to tell them.
    @Test func anObservedStoreWakesWhenAPhaseChangesByItselfEvenForEditsItDoesNotSend() {
        var leased = Self.entry("a", kind: "post")
        leased.sentElsewhereUntil = date.addingTimeInterval(60)
        var waiting = Self.entry("b", attempts: 1)
        waiting.nextAttemptAt = date + 3
        for readOnly in [true, false] {
            var schedule = OutboxSchedule()
            schedule.readOnly = readOnly
            let kinds = readOnly ? "none" : "only b's"
            if !readOnly { _ = schedule.registered("like", now: now) }
            #expect(schedule.found([leased], now: now, date: date).isEmpty, "\(kinds): nobody to tell")
            schedule.observed = true
            #expect(
                schedule.found([leased, waiting], now: now, date: date) == [.wake(after: .seconds(3))],
                "handled kinds: \(kinds)")
            #expect(schedule.phase(of: waiting.idempotencyKey, item: waiting.item, now: now) == .retryingLater)
            #expect(
                schedule.woke(now: now + .seconds(3))
                    == (readOnly ? [] : [.send(waiting)]) + [.wake(after: .seconds(2))],
                "the lease looked at again within \(OutboxSchedule.leaseLook)")
            #expect(schedule.phase(of: leased.idempotencyKey, item: leased.item, now: now + .seconds(5)) == .waiting)
        }
    }

    @Test func aNextAttemptTheFileKeepsIsHonouredWhenFirstFoundAndResumeSendsAtOnce() {
        var edit = Self.entry("a", attempts: 1)
        edit.nextAttemptAt = date + 60
        var (schedule, actions) = schedule([edit])
        #expect(actions == [.wake(after: .seconds(60))], "found after a relaunch: it waits for the kept time")
        #expect(schedule.phase(of: edit.idempotencyKey, item: edit.item, now: now) == .retryingLater)
        #expect(schedule.found([edit], now: now + .seconds(59), date: date + 59) == [.wake(after: .seconds(1))])
        #expect(schedule.resumed(now: now + .seconds(1)) == [.send(edit)], "connectivity back: at once")
        _ = schedule.finished(edit, .confirmed, now: now + .seconds(1))
        #expect(
            schedule.found([edit], now: now + .seconds(1), date: date + 1).isEmpty,
            "the kept time is read once: an edit it already knows is not held again")
    }

    @Test func aFailureAnotherStoreCountedOfAnEditKnownHereWaitsForTheTimeItKept() {
        let edit = Self.entry("a")
        var (schedule, actions) = schedule([edit], kinds: [])
        #expect(actions.isEmpty, "known, not sent: no handler yet")
        var failed = edit
        failed.attempts = 1
        failed.nextAttemptAt = date + 60
        #expect(schedule.found([failed], now: now, date: date).isEmpty)
        #expect(schedule.phase(of: edit.idempotencyKey, item: edit.item, now: now) == .retryingLater)
        #expect(schedule.registered("like", now: now) == [.wake(after: .seconds(60))])
        #expect(schedule.resumed(now: now) == [.send(failed)], "connectivity back: at once")
        _ = schedule.finished(failed, .retryable(reason: "503", retryAfter: .seconds(5)), now: now)
        _ = schedule.settled(edit.idempotencyKey, written: true, now: now)
        var counted = failed
        counted.attempts = 2
        counted.nextAttemptAt = date + 5
        #expect(
            schedule.found([counted], now: now, date: date) == [.wake(after: .seconds(5))],
            "its own failure, read back, is not another store's")
    }

    @Test func aSendWhoseEditTheFileNoLongerListsHoldsItsItemsLaterEditsAtMostItsLease() {
        let first = Self.entry("a")
        var later = Self.entry("a")
        later.idempotencyKey = UUID()
        var (schedule, actions) = schedule([first, later])
        #expect(actions == [.send(first)])
        // Settled by hand, or by another store, while this store's handler still runs.
        let lease = Duration.seconds(SendLease.longest)
        #expect(schedule.found([later], now: now, date: date) == [.wake(after: lease)], "one edit in flight")
        // The handler hangs: past its lease, another store could send the item's edits anyway.
        #expect(schedule.woke(now: now + lease) == [.send(later)])
        #expect(schedule.finished(first, .confirmed, now: now + lease) == [.confirm(first)])
    }

    @Test func aKeptNextAttemptInThePastGoesAtOnceAndOneTooFarAheadWaitsTheLongestDelay() {
        var past = Self.entry("a")
        past.nextAttemptAt = date - 10
        var ahead = Self.entry("b")
        ahead.nextAttemptAt = .distantFuture
        let (_, actions) = schedule([past, ahead])
        #expect(actions == [.send(past), .wake(after: .seconds(300))])
        let retry = OutboxSchedule.Retry()
        #expect(retry.wait(until: date + 7.5, from: date) == .milliseconds(7_500))
        #expect(retry.wait(until: Date(timeIntervalSince1970: .infinity), from: date) == .zero)
    }
}
