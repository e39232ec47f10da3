import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// Who may send a queued edit: one store at a time, across stores and processes.
@Suite(.limit(minutes: 3)) struct SendLeaseTests {
    let now = Date()
    let me = SendLease.holder(store: UUID(), process: 10)
    let other = SendLease.holder(store: UUID(), process: 20)

    /// Until when `lease` keeps `me` from sending at `now`, its holder open.
    func heldUntil(_ lease: SendLease, at now: Date, lives: Bool = true) -> Date? {
        lease.heldUntil(against: me, now: now, holderLives: lives)
    }

    @Test func anotherOpenStoresLeaseHoldsUntilItsTime() {
        let lease = SendLease(holder: other, until: now.addingTimeInterval(30))
        #expect(heldUntil(lease, at: now) == lease.until)
        #expect(heldUntil(lease, at: now.addingTimeInterval(31)) == nil, "ended at its time")
    }

    @Test func aStoreNeverWaitsForItsOwnLease() {
        #expect(
            SendLease(holder: me, until: now.addingTimeInterval(30)).heldUntil(against: me, now: now, holderLives: true)
                == nil)
    }

    @Test func aLeaseOfAClosedStoreOrAnEndedProcessHoldsNothing() {
        #expect(heldUntil(SendLease(holder: other, until: now.addingTimeInterval(30)), at: now, lives: false) == nil)
    }

    @Test func anEndFurtherAheadThanAnyLeaseHoldsAsALeaseTakenNow() {
        // A clock set back 10 s since the lease was taken, or an end written by hand.
        let ahead = SendLease(holder: other, until: now.addingTimeInterval(SendLease.longest + 10))
        #expect(ahead.endsTooLate(at: now))
        #expect(heldUntil(ahead, at: now) == now.addingTimeInterval(SendLease.longest), "a live store's send holds")
        let byHand = SendLease(holder: other, until: .distantFuture)
        #expect(byHand.endsTooLate(at: now))
        #expect(heldUntil(byHand, at: now) == now.addingTimeInterval(SendLease.longest), "not forever")
        #expect(!SendLease.taken(by: other, now: now).endsTooLate(at: now))
    }

    @Test func aLeaseReadBackFromTheFileAnInstantAfterItWasTakenHolds() {
        // Taken where its end rounds up to the next millisecond, as the file keeps it.
        let taken = Date(timeIntervalSince1970: 1_800_000_000.0006)
        let lease = SendLease.taken(by: other, now: taken)
        let kept = SendLease(holder: other, until: Date(millisecondsSince1970: lease.until.millisecondsSince1970))
        #expect(kept.until > lease.until)
        for reader in [taken.addingTimeInterval(0.0001), taken.addingTimeInterval(-0.5)] {
            #expect(!kept.endsTooLate(at: reader), "a clock a little behind, or none")
            #expect(heldUntil(kept, at: reader) != nil)
        }
    }

    @Test func aHolderNamesItsProcess() {
        #expect(SendLease(holder: other, until: now).process == 20)
        #expect(SendLease(holder: "not a holder", until: now).process == nil)
    }
}
