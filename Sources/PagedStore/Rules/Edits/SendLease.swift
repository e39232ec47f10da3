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
    /// stand a little behind the taker's. Only an end further ahead was written by hand.
    static let readingSlack: TimeInterval = 1

    /// The holder name of a store of this process.
    static func holder(store: UUID, process: Int32) -> String {
        "\(process):\(store.uuidString)"
    }

    /// The process that holds it, when the holder names one.
    var process: Int32? {
        holder.split(separator: ":", maxSplits: 1).first.flatMap { Int32($0) }
    }

    /// Whether the lease keeps `store` from sending at `now`: held by another store that is still
    /// open (`holderLives`: its process runs, and in this process, the store is not closed), until a
    /// time still ahead and no further than a lease is ever taken for, read back (a later one was
    /// not written by a store: a file edited by hand).
    func holdsOff(_ store: String, now: Date, holderLives: Bool) -> Bool {
        holder != store && until > now && until.timeIntervalSince(now) <= Self.longest + Self.readingSlack
            && holderLives
    }

    /// The lease `store` takes at `now`.
    static func taken(by store: String, now: Date) -> SendLease {
        SendLease(holder: store, until: now.addingTimeInterval(longest))
    }
}
