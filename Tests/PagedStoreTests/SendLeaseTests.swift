import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// Who may send a queued edit: one store at a time, across stores and processes.
@Suite(.limit(minutes: 3)) struct SendLeaseTests {
    let now = Date()
    let me = SendLease.holder(store: UUID(), process: 10)
    let other = SendLease.holder(store: UUID(), process: 20)

    /// Until when `lease` keeps `me` from sending at `now`, its holder open, first seen at `seen`.
    func heldUntil(_ lease: SendLease, at now: Date, seen: Date? = nil, lives: Bool = true) -> Date? {
        lease.heldUntil(against: me, now: now, holderLives: lives, firstSeen: seen ?? now)
    }

    @Test func anotherOpenStoresLeaseHoldsUntilItsTime() {
        let lease = SendLease(holder: other, until: now.addingTimeInterval(30))
        #expect(heldUntil(lease, at: now) == lease.until)
        #expect(heldUntil(lease, at: now.addingTimeInterval(31)) == nil, "ended at its time")
    }

    @Test func aStoreNeverWaitsForItsOwnLease() {
        #expect(
            SendLease(holder: me, until: now.addingTimeInterval(30)).heldUntil(
                against: me, now: now, holderLives: true, firstSeen: now) == nil)
    }

    @Test func aLeaseOfAClosedStoreOrAnEndedProcessHoldsNothing() {
        #expect(heldUntil(SendLease(holder: other, until: now.addingTimeInterval(30)), at: now, lives: false) == nil)
    }

    @Test func anEndFurtherAheadThanAnyLeaseHoldsTheLongestFromWhenItWasFirstSeen() {
        // A clock set back 10 s since the lease was taken, or an end written by hand.
        let ahead = SendLease(holder: other, until: now.addingTimeInterval(SendLease.longest + 10))
        let end = now.addingTimeInterval(SendLease.longest)
        #expect(heldUntil(ahead, at: now) == end, "a live store's send is not voided")
        #expect(heldUntil(ahead, at: now.addingTimeInterval(200), seen: now) == ahead.until, "a lease again by then")
        #expect(heldUntil(ahead, at: ahead.until, seen: now) == nil)
        let byHand = SendLease(holder: other, until: .distantFuture)
        #expect(heldUntil(byHand, at: now.addingTimeInterval(SendLease.longest), seen: now) == nil, "not forever")
    }

    @Test func aLeaseReadBackFromTheFileAnInstantAfterItWasTakenHolds() {
        // Taken where its end rounds up to the next millisecond, as the file keeps it.
        let taken = Date(timeIntervalSince1970: 1_800_000_000.0006)
        let lease = SendLease.taken(by: other, now: taken)
        let kept = SendLease(holder: other, until: Date(millisecondsSince1970: lease.until.millisecondsSince1970))
        #expect(kept.until > lease.until)
        #expect(heldUntil(kept, at: taken.addingTimeInterval(0.0001)) == kept.until)
        #expect(heldUntil(kept, at: taken.addingTimeInterval(-0.5)) == kept.until, "a clock a little behind")
    }

    @Test func aHolderNamesItsProcess() {
        #expect(SendLease(holder: other, until: now).process == 20)
        #expect(SendLease(holder: "not a holder", until: now).process == nil)
    }
}
