import Foundation

/// A store's durable outbox: the edits made by kind (``Feed/enqueue(_:id:argument:_:)``), sent to
/// their server by the handler registered for their kind, until the server settles each one, also
/// after a relaunch.
///
/// ```swift
/// await store.outbox.register("like", as: LikeArgument.self) { edit in
///     try await api.like(edit.itemID, liked: edit.argument.liked, idempotencyKey: edit.idempotencyKey)
///     return .confirmed
/// }
/// ```
///
/// Queued edits are sent when a handler for their kind is registered (after a relaunch, also the
/// edits of feeds the app has not opened), when an edit is queued, when the app calls ``resume()``
/// (connectivity is back), and after a failed send with a backoff that honours the server's
/// `Retry-After`, kept with the edit so that a relaunch waits for it too (``resume()`` does not).
/// An item's edits go in order, one at a time; handlers run outside any transaction. A handler's
/// ``OutboxOutcome`` settles the edit: confirmed (the next server copy wins), rejected (rolled back
/// with index paths) or retryable (kept, its failure counted, sent again later). A handler that
/// throws is retryable with the error's description. Until an edit settles, every refresh keeps it
/// on top of the server's rows, and it is stored with its idempotency key, so a send cut short by a
/// crash goes again under the same key: delivery is at least once, and a server that applies each
/// key once applies each edit once.
///
/// An edit's feed need not be open: the outbox writes the outcome through the store's one write
/// path, through the feed when it is open in this store, and every open list of the feed follows
/// the write (in another store or process too, see <doc:SharingACacheWithExtensions>); a feed
/// opened later reads the rolled-back rows. A read-only store's outbox lists the queued edits and
/// sends none.
public actor Outbox {
    /// A registered handler: decodes the argument and reports the outcome.
    typealias Handler = @Sendable (QueuedEditRow, _ attempt: Int) async -> OutboxOutcome

    nonisolated let queue: DatabaseQueue
    /// Writes outcomes of edits whose feed is not open in this store.
    private let writer: OutboxWriter
    private var schedule = OutboxSchedule()
    private var handlers: [String: Handler] = [:]
    /// The feeds open in this store, by key, held weakly: an outcome goes through the feed while
    /// it is open, so that it also forgets the edit's change.
    private var feeds: [String: WeakOutboxFeed] = [:]
    /// The queued edits as the file last listed them.
    private var rows: [QueuedEditRow] = []
    private var observers: [Int: AsyncStream<OutboxStatus>.Continuation] = [:]
    private var nextObserver = 0
    private var wake: Task<Void, Never>?
    /// Whether it follows every write to the file (see ``LiveFeeds/followEveryWrite(_:file:)``): while
    /// it has observers or handlers, so that what another store or process writes of the queued
    /// edits reaches them; a store whose outbox nobody uses pays nothing for it.
    private var following = false
    /// The status last sent to the observers: a look that changed nothing sends nothing.
    private var published: OutboxStatus?
    /// Who this store is when it holds an edit's send lease (``SendLease``): open until the store
    /// closes or the outbox goes.
    private nonisolated let leaseHolder = LeaseHolders.shared.opened()

    /// Runs on its store's storage executor, as the feeds do: it reads the file without a hop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        queue.executor.asUnownedSerialExecutor()
    }

    /// The store's clock, the outbox's only reading of the time.
    private nonisolated var clock: StoreClock { writer.store.clock }

    init(store: StoreWriter) {
        queue = store.queue
        writer = OutboxWriter(store: store)
        schedule.readOnly = queue.isReadOnly
        // A closed store follows nothing, and the edits it was sending may go from another store once
        // their handlers answer (see LeaseHolders).
        let (follower, file, holder) = (writer.follower, queue.file, leaseHolder)
        _ = queue.onClose {
            if let file { LiveFeeds.shared.stopFollowing(follower, file: file) }
            LeaseHolders.shared.closed(holder)
        }
    }

    deinit {
        if let file = queue.file { LiveFeeds.shared.stopFollowing(writer.follower, file: file) }
        LeaseHolders.shared.closed(leaseHolder)
    }

    /// Registers how edits of `kind` reach their server; a second registration of a kind replaces
    /// the first. The edits of that kind already queued (after a relaunch) are sent at once.
    ///
    /// - Parameters:
    ///   - kind: The kind the app makes edits with.
    ///   - argumentType: The type of the argument the edits are made with, decoded from JSON. An
    ///     edit whose argument does not decode as it can never be sent: it is rejected.
    ///   - handler: Sends one edit and says what the server made of it; it runs whether or not the
    ///     edit's feed is open. Throwing is a retryable outcome with the error's description (its
    ///     `Retry-After` when it is a ``FeedError``).
    public func register<Argument: Decodable & Sendable>(
        _ kind: String, as argumentType: Argument.Type = Argument.self,
        _ handler: @escaping @Sendable (OutboxEdit<Argument>) async throws -> OutboxOutcome
    ) {
        handlers[kind] = { row, attempt in
            let argument: Argument
            do {
                argument = try JSONDecoder().decode(Argument.self, from: row.queued.argument)
            } catch {
                return .rejected(reason: "its argument does not decode as \(Argument.self): \(error)")
            }
            let edit = OutboxEdit(
                feedKey: row.feedKey, itemID: row.itemID, change: PendingEdit.Kind(row.change), argument: argument,
                idempotencyKey: row.queued.idempotencyKey, attempt: attempt)
            do {
                return try await handler(edit)
            } catch {
                let retryAfter = (error as? FeedError)?.retryAfter.flatMap { $0.isFinite ? Duration.seconds($0) : nil }
                return .retryable(reason: "\(error)", retryAfter: retryAfter)
            }
        }
        look()
        perform(schedule.registered(kind, now: clock.now()))
        followWhileUsed()
    }

    /// Sends every queued edit that waits for a retry's delay now: call it when connectivity is back.
    public func resume() {
        look()
        perform(schedule.resumed(now: clock.now()))
    }

    /// Sets how long a failed send waits before the next: `first` after the first failure, doubling
    /// with each further one, at most `maximum` (also for a server's `Retry-After`). Defaults: 1
    /// second and 5 minutes.
    public func setRetryDelays(first: Duration, maximum: Duration) {
        schedule.retry = OutboxSchedule.Retry(firstDelay: first, maximumDelay: maximum)
    }

    /// The store's queued edits now, oldest first, as the file lists them (whichever store or process
    /// queued or settled them).
    public var status: OutboxStatus {
        look()
        return currentStatus
    }

    /// The queued edits as the file last listed them, with where each stands in this store.
    private var currentStatus: OutboxStatus {
        OutboxStatus(
            edits: rows.map { row in
                OutboxEditState(
                    feedKey: row.feedKey, itemID: row.itemID, kind: row.queued.kind,
                    change: PendingEdit.Kind(row.change),
                    idempotencyKey: row.queued.idempotencyKey, createdAt: row.createdAt,
                    attempts: row.queued.attempts, lastError: row.queued.lastError,
                    phase: schedule.phase(
                        of: row.queued.idempotencyKey, item: .init(feedKey: row.feedKey, itemID: row.itemID),
                        now: clock.now()))
            })
    }

    /// The outbox's status now, then again every time an edit is queued, sent, fails or settles.
    ///
    /// ```swift
    /// for await status in await store.outbox.states {
    ///     badge.text = status.count == 0 ? nil : "\(status.count) changes waiting to sync"
    /// }
    /// ```
    public var states: AsyncStream<OutboxStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: OutboxStatus.self)
        let id = nextObserver
        nextObserver += 1
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        // Looked at before it observes: a change the look publishes goes to the others, and the new
        // observer gets the status once, as its first. Observed from this look on, the schedule also
        // wakes when a phase changes by itself.
        schedule.observed = true
        look()
        observers[id] = continuation
        let status = currentStatus
        published = status
        continuation.yield(status)
        followWhileUsed()
        return stream
    }

    // MARK: - Driving

    /// A feed of the store opened: its outcomes go through it while it is open.
    func opened(_ feed: any OutboxFeed) {
        feeds[feed.key] = WeakOutboxFeed(feed: feed)
        look()
    }

    /// A feed queued an edit: it goes now if it can.
    func queued(by feed: any OutboxFeed) {
        opened(feed)
    }

    /// Reads the file's queued edits and tells the schedule.
    private func look() {
        do {
            rows = try queue.read { try $0.queuedEdits() }
        } catch {
            // A closed or unreadable file: nothing can be sent or settled; the next look tries again.
            return
        }
        feeds = feeds.filter { $0.value.feed != nil }
        let date = clock.date()
        let entries = rows.map { row in
            OutboxSchedule.Entry(
                item: .init(feedKey: row.feedKey, itemID: row.itemID), kind: row.queued.kind,
                idempotencyKey: row.queued.idempotencyKey, attempts: row.queued.attempts,
                nextAttemptAt: row.queued.nextAttemptAt, sentElsewhereUntil: sentElsewhereUntil(row, at: date))
        }
        perform(schedule.found(entries, now: clock.now(), date: date))
    }

    /// Until when another store sends the edit of `row` (it holds a lease that holds at `date`). A
    /// lease that ends too late is left to the send, whose take of the lease writes it back (see
    /// ``OutboxWriter/takeSendLease(of:key:inFeed:for:knowing:)``).
    private func sentElsewhereUntil(_ row: QueuedEditRow, at date: Date) -> Date? {
        guard let holder = row.sendingBy, let until = row.sendingUntil else { return nil }
        let lease = SendLease(holder: holder, until: until)
        guard !lease.endsTooLate(at: date) else { return nil }
        return lease.heldUntil(
            against: leaseHolder, now: date,
            holderLives: LeaseHolders.shared.lives(holder, sending: row.queued.idempotencyKey))
    }

    private func perform(_ actions: [OutboxSchedule.Action]) {
        for action in actions {
            switch action {
            case .send(let entry):
                guard let row = rows.first(where: { $0.queued.idempotencyKey == entry.idempotencyKey }),
                    let handler = handlers[entry.kind]
                else {
                    perform(schedule.finished(entry, .retryable(reason: "not sent", retryAfter: nil), now: clock.now()))
                    continue
                }
                // One store at a time sends an edit: the lease is taken in the file first.
                let lease = Result {
                    try writer.takeSendLease(
                        of: entry.item.itemID, key: entry.idempotencyKey, inFeed: entry.item.feedKey, for: leaseHolder,
                        knowing: entry.attempts)
                }
                switch lease {
                case .success(nil): break
                case .success(let wait?):
                    perform(schedule.sentElsewhere(entry, for: wait, now: clock.now()))
                    continue
                case .failure:
                    // The file could not be written (busy): the send waits as a failed one would.
                    perform(schedule.sentElsewhere(entry, for: .seconds(1), now: clock.now()))
                    continue
                }
                // The lease holds while the handler runs, even once the store closes or goes: until
                // then no other store sends the edit, nor its item's later edits.
                let (holder, key) = (leaseHolder, entry.idempotencyKey)
                LeaseHolders.shared.beganSending(key, by: holder)
                Task { [weak self] in
                    let outcome = await handler(row, entry.attempts + 1)
                    LeaseHolders.shared.endedSending(key, by: holder)
                    await self?.finished(entry, outcome)
                }
            case .confirm(let entry):
                settle(entry, confirmed: true)
            case .rollBack(let entry, _):
                settle(entry, confirmed: false)
            case .recordFailure(let entry, let reason, let delay):
                // Kept as a wall-clock time: a relaunch before it waits too.
                let components = delay.components
                let nextAttemptAt = clock.date().addingTimeInterval(
                    Double(components.seconds) + Double(components.attoseconds) / 1e18)
                write(entry) { [leaseHolder] writer in
                    try writer.recordFailedSend(
                        of: entry.item.itemID, key: entry.idempotencyKey, by: leaseHolder, error: reason,
                        nextAttemptAt: nextAttemptAt, inFeed: entry.item.feedKey)
                }
            case .wake(let delay):
                wake?.cancel()
                // Due from now, not from whenever the task starts.
                let due = clock.now() + delay
                wake = Task { [weak self, clock] in
                    guard (try? await clock.sleep(due)) != nil else { return }
                    await self?.woke()
                }
            }
        }
        publish()
    }

    private func finished(_ entry: OutboxSchedule.Entry, _ outcome: OutboxOutcome) {
        perform(schedule.finished(entry, outcome, now: clock.now()))
    }

    private func woke() {
        // A closed store sends nothing more: it could not write an outcome, and another store may
        // take its edits over.
        guard !queue.isClosed else { return }
        look()
        perform(schedule.woke(now: clock.now()))
    }

    /// Writes an outcome, through the edit's feed when it is open in this store (it also forgets the
    /// edit's change), else through the outbox's writer.
    private func settle(_ entry: OutboxSchedule.Entry, confirmed: Bool) {
        let (itemID, key, feedKey) = (entry.item.itemID, entry.idempotencyKey, entry.item.feedKey)
        if let feed = feeds[feedKey]?.feed {
            write(entry) { _ in try await feed.settleQueuedEdit(itemID, key: key, confirmed: confirmed) }
        } else {
            write(entry) { writer in try writer.settle(itemID, key: key, confirmed: confirmed, inFeed: feedKey) }
        }
    }

    /// Runs a write of an edit's outcome after this turn of the outbox, then looks at the file again.
    private func write(
        _ entry: OutboxSchedule.Entry, _ body: @escaping @Sendable (OutboxWriter) async throws -> Void
    ) {
        Task { [weak self, writer] in
            let written = (try? await body(writer)) != nil
            await self?.settled(entry.idempotencyKey, written: written)
        }
    }

    private func settled(_ key: UUID, written: Bool) {
        let actions = schedule.settled(key, written: written, now: clock.now())
        look()
        perform(actions)
    }

    private func publish() {
        guard !observers.isEmpty else { return }
        let status = currentStatus
        guard status != published else { return }
        published = status
        for continuation in observers.values { continuation.yield(status) }
    }

    private func removeObserver(_ id: Int) {
        observers[id] = nil
        schedule.observed = !observers.isEmpty
        followWhileUsed()
    }

    // MARK: - Following the file

    /// Follows every write to the file while the outbox has observers or handlers, and stops when
    /// it has neither: each write, by any store or process, makes it look at the file again.
    private func followWhileUsed() {
        guard let file = queue.file else { return }
        let used = !observers.isEmpty || !handlers.isEmpty
        guard used != following, !queue.isClosed else { return }
        following = used
        let follower = writer.follower
        guard used else {
            LiveFeeds.shared.stopFollowing(follower, file: file)
            return
        }
        let nudges = LiveFeeds.shared.followEveryWrite(follower, file: file)
        Task { [weak self] in
            for await _ in nudges { await self?.followed() }
        }
        // Other processes' commits too, through the file's watcher.
        LiveFeeds.shared.setObserved(true, follower: follower, file: file, path: queue.resolvedPath)
    }

    /// Someone wrote to the file: its queued edits may have changed.
    private func followed() {
        guard !queue.isClosed else { return }
        look()
        publish()
    }
}

/// What the outbox needs of an open feed: its key, and writing an edit's outcome through it.
protocol OutboxFeed: AnyObject, Sendable {
    nonisolated var key: String { get }
    /// Deletes the queued edit with `key` (confirmed) or rolls it back (not), if the feed still has it.
    func settleQueuedEdit(_ itemID: String, key: UUID, confirmed: Bool) async throws
}

/// An open feed, held without keeping it open.
struct WeakOutboxFeed {
    weak var feed: (any OutboxFeed)?
}

extension PendingEdit.Kind {
    init(_ kind: PendingEditRecord.Kind) {
        switch kind {
        case .update: self = .update
        case .insert: self = .insert
        case .remove: self = .remove
        }
    }
}
