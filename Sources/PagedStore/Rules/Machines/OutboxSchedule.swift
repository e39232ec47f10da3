import Foundation

/// The rules of the outbox: which queued edit is sent next, what each outcome does, and when a
/// failed send is tried again.
///
/// - Edits go oldest first, and an item's edits in order: an edit waits while an earlier edit of
///   its item is waiting or in flight, so at most one edit of an item is ever in flight.
/// - An edit is sent once a handler is registered for its kind, whether its feed is open or not
///   (its outcome is written through the store's write path, which every open list follows). A
///   read-only store sends nothing: it could never write the outcome.
/// - An edit another store sends (it holds the edit's lease, see ``SendLease``) is not sent here
///   until the lease ends, nor are its item's later edits.
/// - An edit in flight, or whose outcome is being written, is never sent again, even when the file
///   still lists it; an edit the file no longer lists (settled by another store, its feed deleted) is
///   forgotten and never sent again; its item's later edits wait for its answer as long as its lease
///   would hold (``SendLease/longest``), no longer (a handler that hangs).
/// - Confirmed: the edit is deleted (the next server copy wins). Rejected: it is rolled back.
///   Retryable: it stays, its failure is counted, and it waits for its delay, or for
///   ``resumed(now:)`` (connectivity back), whichever comes first. The file keeps when it may go
///   again: an edit the schedule first finds (after a relaunch, or queued by another store), or
///   whose failure another store counted, waits until then too, at most the longest delay (a clock
///   set back, a file edited by hand).
///
/// Pure: no SQLite, no clock reads (callers pass the time in), no tasks; each event returns the
/// actions that follow it, which the ``Outbox`` performs.
struct OutboxSchedule: Sendable {
    /// An item of a feed: the unit edits are ordered by.
    struct ItemKey: Hashable, Sendable {
        var feedKey: String
        var itemID: String
    }

    /// A queued edit as the file lists it.
    struct Entry: Equatable, Sendable {
        var item: ItemKey
        /// The kind whose handler sends it.
        var kind: String
        var idempotencyKey: UUID
        /// Failed sends so far.
        var attempts: Int
        /// The earliest time of the next send, as the file keeps it after a failed send (wall-clock
        /// time: it outlives the process).
        var nextAttemptAt: Date? = nil
        /// Until when another store sends it (its send lease, see ``SendLease``), or nil.
        var sentElsewhereUntil: Date? = nil
    }

    /// What the outbox does next.
    enum Action: Equatable, Sendable {
        /// Calls the handler of the edit's kind (outside any transaction).
        case send(Entry)
        /// Deletes the pending edit: the server has it.
        case confirm(Entry)
        /// Rolls the edit back, as a failed closure call does.
        case rollBack(Entry, reason: String)
        /// Counts the failed send and keeps what it said, and that it goes again `after` this long.
        case recordFailure(Entry, reason: String, after: Duration)
        /// Calls ``woke(now:)`` after this long: the first edit waiting for its delay is due.
        case wake(after: Duration)
    }

    /// How long a failed send waits before the next.
    struct Retry: Equatable, Sendable {
        /// The wait after the first failure; it doubles with each further failure.
        var firstDelay: Duration = .seconds(1)
        /// The longest wait, also for a server's `Retry-After`.
        var maximumDelay: Duration = .seconds(300)

        /// The wait after `failures` failed sends (at least 1), or the server's `retryAfter` when it
        /// named one, at most ``maximumDelay``.
        func delay(afterFailures failures: Int, retryAfter: Duration?) -> Duration {
            if let retryAfter { return max(min(retryAfter, maximumDelay), .zero) }
            // Doubles until it would pass the maximum, so no count of failures can overflow.
            var delay = max(min(firstDelay, maximumDelay), .zero)
            var failure = 1
            while failure < failures, delay < maximumDelay {
                delay = delay > maximumDelay / 2 ? maximumDelay : delay * 2
                failure += 1
            }
            return delay
        }

        /// The wait from `date` until `time` (a next attempt the file keeps): none when it has
        /// passed, at most ``maximumDelay`` when it lies further ahead than any delay could.
        func wait(until time: Date, from date: Date) -> Duration {
            let seconds = time.timeIntervalSince(date)
            let longest = maximumDelay.components
            let maximum = Double(longest.seconds) + Double(longest.attoseconds) / 1e18
            // Compared as doubles first: a time from an edited file may be any value.
            guard seconds.isFinite, seconds > 0 else { return .zero }
            return seconds >= maximum ? max(maximumDelay, .zero) : .seconds(seconds)
        }
    }

    var retry = Retry()
    /// The queued edits the file lists, oldest first.
    private(set) var waiting: [Entry] = []
    /// The edits whose handler runs, by item.
    private(set) var inFlight: [ItemKey: UUID] = [:]
    /// When each edit in flight was sent.
    private(set) var sentAt: [UUID: ContinuousClock.Instant] = [:]
    /// An edit whose outcome is being written.
    struct Settling: Equatable, Sendable {
        var entry: Entry
        /// It stays queued (a retryable outcome): still the first of its item while the file lists
        /// it, so a look meanwhile keeps it waiting, as counted here, ahead of its item's later edits.
        var stays: Bool
        /// A look at the file meanwhile no longer found it (another store settled it): a write of its
        /// outcome that fails does not bring it back.
        var gone = false
    }

    /// The edits whose outcome is being written: the file lists them until it is, and their items'
    /// later edits wait for it.
    private(set) var settling: [UUID: Settling] = [:]
    /// When each edit that failed may be sent again.
    private(set) var notBefore: [UUID: ContinuousClock.Instant] = [:]
    /// The edits another store sends (it holds their lease), until when at the latest: not sent
    /// here meanwhile, and their items' later edits wait too.
    private(set) var elsewhere: [UUID: ContinuousClock.Instant] = [:]
    /// The kinds with a handler.
    private(set) var handledKinds: Set<String> = []
    /// Whether the store only reads: nothing is sent.
    var readOnly = false
    /// Whether someone follows the edits' phases (the outbox's `states`): the schedule then wakes
    /// when a phase changes by itself (another store's lease or a retry's wait ends), also for the
    /// edits this store does not send (no handler for their kind, a read-only store), whose badge
    /// would otherwise say "sending" until the next write.
    var observed = false

    /// The file's queued edits, oldest first, as just read at `now` (`date` on the wall clock).
    /// An edit found for the first time waits until the next attempt the file keeps for it.
    mutating func found(_ entries: [Entry], now: ContinuousClock.Instant, date: Date) -> [Action] {
        let known = Set(waiting.map(\.idempotencyKey)).union(inFlight.values).union(settling.keys)
        let counted = Dictionary(waiting.map { ($0.idempotencyKey, $0) }, uniquingKeysWith: { first, _ in first })
        for entry in entries {
            let key = entry.idempotencyKey
            guard let at = entry.nextAttemptAt else { continue }
            let firstFound = !known.contains(key) && notBefore[key] == nil
            // Another store's failed send (the file counts more failures than this schedule did):
            // it waits for the time that store wrote, as a store first finding the edit would.
            let failedElsewhere =
                settling[key] == nil && !inFlight.values.contains(key)
                && entry.attempts > (counted[key]?.attempts ?? .max)
            if firstFound || failedElsewhere { notBefore[key] = now + retry.wait(until: at, from: date) }
        }
        // An edit whose failure is being written is kept as the schedule counted it: the file does
        // not have its new count yet.
        waiting = entries.compactMap { entry in
            guard let settled = settling[entry.idempotencyKey] else { return entry }
            return settled.stays ? counted[entry.idempotencyKey] ?? entry : nil
        }
        let listed = Set(entries.map(\.idempotencyKey))
        for key in settling.keys where !listed.contains(key) { settling[key]?.gone = true }
        notBefore = notBefore.filter { listed.contains($0.key) }
        elsewhere = [:]
        for entry in entries {
            guard let until = entry.sentElsewhereUntil, inFlight[entry.item] != entry.idempotencyKey else { continue }
            elsewhere[entry.idempotencyKey] = now + min(retry.wait(until: until, from: date), Self.leaseLook)
        }
        return next(now: now)
    }

    /// How often the schedule looks again at an edit another store sends: its process may have
    /// ended without a word (a crash), which the file does not say.
    static let leaseLook: Duration = .seconds(5)

    /// The send of `entry` found another store holding its lease: it waits `wait` at the latest,
    /// and looks again within ``leaseLook`` (a look that finds the lease ended sends it).
    mutating func sentElsewhere(_ entry: Entry, for wait: Duration, now: ContinuousClock.Instant) -> [Action] {
        if inFlight[entry.item] == entry.idempotencyKey { inFlight[entry.item] = nil }
        sentAt[entry.idempotencyKey] = nil
        elsewhere[entry.idempotencyKey] = now + min(max(wait, .zero), Self.leaseLook)
        return next(now: now)
    }

    /// A handler was registered for `kind`.
    mutating func registered(_ kind: String, now: ContinuousClock.Instant) -> [Action] {
        handledKinds.insert(kind)
        return next(now: now)
    }

    /// Connectivity is back: every edit waiting for its delay goes now.
    mutating func resumed(now: ContinuousClock.Instant) -> [Action] {
        notBefore = [:]
        return next(now: now)
    }

    /// The first delay is due.
    mutating func woke(now: ContinuousClock.Instant) -> [Action] {
        next(now: now)
    }

    /// The handler of `entry` answered.
    mutating func finished(_ entry: Entry, _ outcome: OutboxOutcome, now: ContinuousClock.Instant) -> [Action] {
        if inFlight[entry.item] == entry.idempotencyKey { inFlight[entry.item] = nil }
        sentAt[entry.idempotencyKey] = nil
        let action: Action
        var stays = false
        switch outcome {
        case .confirmed:
            action = .confirm(entry)
        case .rejected(let reason):
            action = .rollBack(entry, reason: reason)
        case .retryable(let reason, let retryAfter):
            var failed = entry
            failed.attempts += 1
            let delay = retry.delay(afterFailures: failed.attempts, retryAfter: retryAfter)
            notBefore[entry.idempotencyKey] = now + delay
            if let index = waiting.firstIndex(where: { $0.idempotencyKey == entry.idempotencyKey }) {
                waiting[index] = failed
            }
            action = .recordFailure(entry, reason: reason, after: delay)
            stays = true
        }
        if !stays {
            waiting.removeAll { $0.idempotencyKey == entry.idempotencyKey }
        }
        settling[entry.idempotencyKey] = Settling(entry: entry, stays: stays)
        return [action] + next(now: now)
    }

    /// The outcome of the edit with `key` is written (or could not be: `written` false, and the
    /// edit waits for a retry's delay before it goes again).
    mutating func settled(_ key: UUID, written: Bool, now: ContinuousClock.Instant) -> [Action] {
        guard let settled = settling.removeValue(forKey: key) else { return next(now: now) }
        let entry = settled.entry
        if settled.gone {
            // Forgotten; its item's next edit waits for the next look at the file to say it is next.
            waiting.removeAll { $0.idempotencyKey == key }
            return next(now: now, holding: entry.item)
        } else if !written {
            if notBefore[key] == nil { notBefore[key] = now + retry.delay(afterFailures: 1, retryAfter: nil) }
            // Still in the file: still its item's first edit, ahead of the later ones.
            if !waiting.contains(where: { $0.idempotencyKey == key }) {
                waiting.insert(entry, at: waiting.firstIndex { $0.item == entry.item } ?? waiting.endIndex)
            }
        }
        return next(now: now)
    }

    /// The edits to send now, and when to look again for one that waits for its delay.
    private mutating func next(now: ContinuousClock.Instant, holding held: ItemKey? = nil) -> [Action] {
        var (actions, firstDue) = readOnly ? ([], nil) : sends(now: now, holding: held)
        if observed, let change = nextPhaseChange(after: now) { firstDue = min(firstDue ?? change, change) }
        if let firstDue { actions.append(.wake(after: firstDue - now)) }
        return actions
    }

    /// The first time after `now` at which an edit's ``phase(of:item:now:)`` changes with no event.
    private func nextPhaseChange(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        let listed = Set(waiting.map(\.idempotencyKey))
        return elsewhere.merging(notBefore) { min($0, $1) }
            .filter { listed.contains($0.key) && $0.value > now }.values.min()
    }

    /// The edits to send now, and when the first that waits is due.
    private mutating func sends(
        now: ContinuousClock.Instant, holding held: ItemKey?
    ) -> (actions: [Action], firstDue: ContinuousClock.Instant?) {
        var actions: [Action] = []
        var firstDue: ContinuousClock.Instant?
        // A send whose edit the file no longer lists (settled by hand or by another store, its feed
        // deleted) holds its item's later edits while its handler may still run, but no longer than
        // its lease: past it, another store could send them anyway (a handler that hangs).
        let listed = Set(waiting.map(\.idempotencyKey))
        for (item, key) in inFlight where !listed.contains(key) {
            guard let since = sentAt[key] else { continue }
            let ends = since + .seconds(SendLease.longest)
            if ends > now {
                if waiting.contains(where: { $0.item == item }) { firstDue = min(firstDue ?? ends, ends) }
            } else {
                inFlight[item] = nil
                sentAt[key] = nil
            }
        }
        var itemsAhead = Set(inFlight.keys).union(settling.values.map(\.entry.item)).union(held.map { [$0] } ?? [])
        for entry in waiting {
            // An item's later edits wait behind its first one, sent or not.
            guard itemsAhead.insert(entry.item).inserted else { continue }
            guard handledKinds.contains(entry.kind) else { continue }
            if let until = elsewhere[entry.idempotencyKey], until > now {
                firstDue = min(firstDue ?? until, until)
                continue
            }
            elsewhere[entry.idempotencyKey] = nil
            if let due = notBefore[entry.idempotencyKey], due > now {
                firstDue = min(firstDue ?? due, due)
                continue
            }
            notBefore[entry.idempotencyKey] = nil
            inFlight[entry.item] = entry.idempotencyKey
            sentAt[entry.idempotencyKey] = now
            actions.append(.send(entry))
        }
        return (actions, firstDue)
    }

    /// Where an edit stands, for the outbox's observers.
    func phase(of key: UUID, item: ItemKey, now: ContinuousClock.Instant) -> OutboxEditState.Phase {
        if inFlight[item] == key || settling[key] != nil { return .sending }
        if let until = elsewhere[key], until > now { return .sending }
        if let due = notBefore[key], due > now { return .retryingLater }
        return .waiting
    }
}
