import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// Who may send a queued edit: one store at a time, across stores and processes.
@Suite(.limit(minutes: 3)) struct SendLeaseTests {
    let now = Date()
    let me = SendLease.holder(store: UUID(), process: 10)
    let other = SendLease.holder(store: UUID(), process: 20)

    @Test func anotherOpenStoresLeaseHoldsUntilItsTime() {
        let lease = SendLease(holder: other, until: now.addingTimeInterval(30))
        #expect(lease.holdsOff(me, now: now, holderLives: true))
        #expect(!lease.holdsOff(me, now: now.addingTimeInterval(31), holderLives: true), "ended at its time")
    }

    @Test func aStoreNeverWaitsForItsOwnLease() {
        #expect(!SendLease(holder: me, until: now.addingTimeInterval(30)).holdsOff(me, now: now, holderLives: true))
    }

    @Test func aLeaseOfAClosedStoreOrAnEndedProcessHoldsNothing() {
        let lease = SendLease(holder: other, until: now.addingTimeInterval(30))
        #expect(!lease.holdsOff(me, now: now, holderLives: false))
    }

    @Test func aLeaseLongerThanAnyTakenIsNoStoresAndHoldsNothing() {
        let edited = SendLease(holder: other, until: now.addingTimeInterval(SendLease.longest + 60))
        #expect(!edited.holdsOff(me, now: now, holderLives: true))
        #expect(SendLease.taken(by: me, now: now).holdsOff(other, now: now, holderLives: true))
    }

    @Test func aLeaseReadBackFromTheFileAnInstantAfterItWasTakenHolds() {
        // Taken where its end rounds up to the next millisecond, as the file keeps it.
        let taken = Date(timeIntervalSince1970: 1_800_000_000.0006)
        let lease = SendLease.taken(by: other, now: taken)
        let kept = SendLease(holder: other, until: Date(millisecondsSince1970: lease.until.millisecondsSince1970))
        #expect(kept.until > lease.until)
        #expect(kept.holdsOff(me, now: taken.addingTimeInterval(0.0001), holderLives: true))
        #expect(kept.holdsOff(me, now: taken.addingTimeInterval(-0.5), holderLives: true), "a clock a little behind")
    }

    @Test func aHolderNamesItsProcess() {
        #expect(SendLease(holder: other, until: now).process == 20)
        #expect(SendLease(holder: "not a holder", until: now).process == nil)
    }
}
