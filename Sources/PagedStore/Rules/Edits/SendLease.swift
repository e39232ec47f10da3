import Foundation

/// The rule of who may send a queued edit: one store at a time, across stores and processes.
///
/// A store takes a lease on the edit, in a write transaction, before its handler sends it; no other
/// store sends the edit while the lease holds. A lease holds until the send's outcome is written,
/// until its holder's process is gone (a crash: the next store takes it over at once), or, should
/// the process live on without answering (a hung handler, a process id used again), until its time.
/// A store never waits for its own lease.
///
/// Pure: the time and whether a process lives come in; ``Outbox`` reads and writes the lease.
struct SendLease: Equatable, Sendable {
    /// Who holds it: `pid:store`.
    var holder: String
    /// When it ends at the latest.
    var until: Date

    /// How long a lease holds at most: longer than any send should take. A send that takes longer
    /// may be sent again by another store, under the same idempotency key.
    static let longest: TimeInterval = 300

    /// How much longer than ``longest`` a lease a store took may look when read back: the file keeps
    /// its end to the millisecond (rounded, so up to half of one later), and the reader's clock may
    /// stand a little behind the taker's.
    static let readingSlack: TimeInterval = 1

    /// The holder name of a store of this process.
    static func holder(store: UUID, process: Int32) -> String {
        "\(process):\(store.uuidString)"
    }

    /// The process that holds it, when the holder names one.
    var process: Int32? {
        holder.split(separator: ":", maxSplits: 1).first.flatMap { Int32($0) }
    }

    /// Until when the lease keeps `store` from sending, read at `now`; nil when it does not: it is
    /// `store`'s own, its holder is no longer open (`holderLives`: its process runs, and in this
    /// process, the store is open or its handler still sends this edit), or its end has passed. At
    /// most ``longest`` from `now`: an end further ahead (see ``endsTooLate(at:)``) holds as a lease
    /// taken now would.
    func heldUntil(against store: String, now: Date, holderLives: Bool) -> Date? {
        guard holder != store, holderLives, until > now else { return nil }
        return min(until, now.addingTimeInterval(Self.longest))
    }

    /// Whether its end lies further ahead of `now` than a lease is ever taken for, read back (see
    /// ``readingSlack``): it was written on a clock since set back, or by hand. The store that finds
    /// it, taking the lease, writes it back as ending ``longest`` from then, so that a clock set back
    /// neither voids a live store's send nor makes it hold longer, and an end written by hand does
    /// not hold forever, whichever store looks next.
    func endsTooLate(at now: Date) -> Bool {
        until.timeIntervalSince(now) > Self.longest + Self.readingSlack
    }

    /// The lease `store` takes at `now`.
    static func taken(by store: String, now: Date) -> SendLease {
        SendLease(holder: store, until: now.addingTimeInterval(longest))
    }
}
