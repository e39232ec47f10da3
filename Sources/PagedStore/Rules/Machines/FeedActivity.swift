/// What a feed's fetches are doing, as one value whose transitions say what to do next.
///
/// Every activity a snapshot shows (refresh, next page, each gap) is derived from here, and so is
/// what ``Feed/retry()`` repeats. The rules that keep the states honest live in one place:
/// - an operation is `loading` exactly while a task owns it, and the task id is in the state, so
///   "loading with nothing in flight" cannot be written down;
/// - a refresh starts a new generation and takes the gap fills' tasks away: their responses are
///   dropped, and their activity goes back to idle at once; a next page goes on, and commits only
///   where it still continues the feed's bottom;
/// - a task's result changes the state only while the task still owns its operation;
/// - a failure carries its own time and `Retry-After`, so a retry never waits out an older one.
///
/// Pure: no SQLite, no network, no clock reads (callers pass the time in), so it is unit-tested alone.
struct FeedActivity: Sendable, Equatable {
    /// Identifies one started fetch.
    struct TaskID: Hashable, Sendable {
        let value: Int
    }

    /// The operations a feed runs.
    enum Operation: Hashable, Sendable {
        case refresh
        case nextPage
        /// Filling the gap with this id.
        case gap(Int64)
    }

    /// A failed operation, with what ``Feed/retry()`` needs.
    struct Failure: Sendable, Equatable {
        var error: FeedError
        var at: ContinuousClock.Instant

        /// When a retry may start: the failure's time plus the server's `Retry-After`, if it sent one.
        var retryNotBefore: ContinuousClock.Instant {
            guard let seconds = error.retryAfter, seconds.isFinite, seconds > 0 else { return at }
            return at.advanced(by: .seconds(min(seconds, 86_400)))
        }
    }

    /// One operation's phase.
    enum Phase: Sendable, Equatable {
        case idle
        case loading(TaskID)
        case failed(Failure)
    }

    /// How a task ended, as the driver tells it. `Commit` is the driver's commit, which the activity
    /// only hands on to the actions that need it.
    enum Outcome<Commit> {
        /// It wrote this commit (in the write that checked it still owned its operation).
        case committed(Commit)
        /// It had nothing this feed may write: the response was superseded inside the write (the
        /// bottom moved, a newer refresh committed, the gap went).
        case nothingWritten
        /// Its caller was cancelled: nothing failed, nothing to retry.
        case cancelled
        case failed(Failure)
    }

    /// What the driver does after a transition, in order. An action carries what the driver needs
    /// to perform it: `Commit` is the driver's commit, handed on from ``Outcome/committed(_:)``, and
    /// a transition that applies none returns `Action<Never>`.
    enum Action<Commit> {
        /// Cancel these tasks: their operation was taken from them.
        case cancel([TaskID])
        /// Take this commit into memory, and emit its change.
        case applyCommit(Commit)
        /// Emit a snapshot: an activity changed.
        case emit
        /// Record the failure in the feed's row, for `pagedb`.
        case recordFailure(FeedError)
        /// Report an event of the operation's request.
        case report(FeedEvent.Kind, error: FeedError? = nil)
        /// Report this commit of the operation's request, with the rows it touched.
        case reportCommitted(Commit)
        /// Ask ``FeedActivity/committed(_:record:)`` what follows this operation's commit, with the
        /// feed's row as applying the commit left it, and perform that.
        case continueAfterCommit(Operation)
        /// Start a next page.
        case startNextPage
        /// Start a next page if the reader is near the bottom and none is loading or failed.
        case prefetch
    }

    /// The current refresh generation: a response fetched under an older one is dropped.
    private(set) var generation: Int64
    private(set) var refresh = Phase.idle
    private(set) var nextPage = Phase.idle
    /// The phases of gaps that are not idle, by gap id.
    private(set) var gaps: [Int64: Phase] = [:]
    /// The end each gap was last filled from, so ``Feed/retry()`` repeats a failed fill the same way.
    private var gapEnds: [Int64: GapEnd] = [:]
    /// Consecutive fills of each gap that brought nothing new: a server cycling cursors is stopped
    /// after ``FeedPolicy/maxPagesWithoutNewItems`` of them.
    private var gapFillsWithoutNewRows: [Int64: Int] = [:]
    private var lastTaskID = 0

    init(generation: Int64) {
        self.generation = generation
    }

    /// The phase of `operation`.
    func phase(of operation: Operation) -> Phase {
        switch operation {
        case .refresh: refresh
        case .nextPage: nextPage
        case .gap(let id): gaps[id] ?? .idle
        }
    }

    /// Whether `task` still owns `operation`: only then may its response be written.
    func owns(_ task: TaskID, _ operation: Operation) -> Bool {
        phase(of: operation) == .loading(task)
    }

    /// The tasks in flight, for cancelling and joining.
    var runningTasks: [TaskID] {
        ([refresh, nextPage] + Array(gaps.values)).compactMap { phase in
            if case .loading(let task) = phase { task } else { nil }
        }
    }

    /// The operations that failed and wait for ``Feed/retry()``, refresh first.
    var failures: [(operation: Operation, failure: Failure)] {
        var result: [(operation: Operation, failure: Failure)] = []
        if case .failed(let failure) = refresh { result.append((.refresh, failure)) }
        if case .failed(let failure) = nextPage { result.append((.nextPage, failure)) }
        for (id, phase) in gaps.sorted(by: { $0.key < $1.key }) {
            if case .failed(let failure) = phase { result.append((.gap(id), failure)) }
        }
        return result
    }

    // MARK: - Transitions

    /// A refresh starts: a new generation, which supersedes the refresh and every gap fill in flight.
    ///
    /// Every gap that was loading goes back to idle now (its response will be dropped), so nothing
    /// shows a spinner for a fetch whose result can no longer land. A next page in flight goes on: it
    /// commits only if the bottom it continues is still the feed's bottom (its cursor and the bottom
    /// row are checked inside its transaction), so a refresh that did not replace the bottom does not
    /// lose it.
    /// - Returns: The refresh's task and generation, and the tasks it superseded (to cancel); nil
    ///   when the generation cannot grow (a file edited to `Int64.max`): then ``refused(_:failure:)``.
    mutating func refreshStarted() -> (task: TaskID, generation: Int64, actions: [Action<Never>])? {
        let (next, overflow) = generation.addingReportingOverflow(1)
        guard !overflow else { return nil }
        var superseded: [TaskID] = []
        if case .loading(let task) = refresh { superseded.append(task) }
        for case .loading(let task) in gaps.values { superseded.append(task) }
        generation = next
        gaps = gaps.filter { _, phase in
            if case .loading = phase { false } else { true }
        }
        let task = newTask()
        refresh = .loading(task)
        return (task, next, [.cancel(superseded), .emit, .report(.requestStarted)])
    }

    /// A next page starts, unless one is loading already (callers join it instead).
    ///
    /// A failed next page may start again (an explicit call or ``Feed/retry()``); prefetch checks
    /// for `idle` itself, because a failure waits for the user.
    mutating func nextPageStarted() -> TaskID? {
        if case .loading = nextPage { return nil }
        let task = newTask()
        nextPage = .loading(task)
        return task
    }

    /// Filling gap `id` from `end` starts, unless it is loading already.
    mutating func gapStarted(_ id: Int64, from end: GapEnd) -> TaskID? {
        if case .loading = gaps[id] { return nil }
        let task = newTask()
        gaps[id] = .loading(task)
        gapEnds[id] = end
        return task
    }

    /// The end gap `id` was last filled from: where a retry fills it from.
    func lastEnd(ofGap id: Int64) -> GapEnd {
        gapEnds[id] ?? .top
    }

    /// A fill of gap `id` committed; `broughtNothingNew` when it added no row and the gap is still
    /// open. Returns the count of such fills in a row once it reaches `limit` (the fill then fails
    /// as a loop, and the count starts again), else nil.
    mutating func gapFilled(_ id: Int64, broughtNothingNew: Bool, limit: Int) -> Int? {
        guard broughtNothingNew else {
            gapFillsWithoutNewRows[id] = nil
            return nil
        }
        let count = (gapFillsWithoutNewRows[id] ?? 0) + 1
        guard count >= limit else {
            gapFillsWithoutNewRows[id] = count
            return nil
        }
        gapFillsWithoutNewRows[id] = nil
        return count
    }

    /// `task` ended with `outcome`.
    ///
    /// A success clears the operation's earlier failure; a failure replaces it whole (error, time,
    /// `Retry-After`). A task that no longer owns its operation changes nothing: its result is
    /// dropped, unwritten and unemitted, and only reported as superseded.
    mutating func finished<Commit>(
        _ operation: Operation, task: TaskID, _ outcome: Outcome<Commit>
    ) -> [Action<Commit>] {
        guard owns(task, operation) else { return [.report(.superseded)] }
        switch outcome {
        case .committed(let commit):
            set(operation, to: .idle)
            return [.applyCommit(commit), .reportCommitted(commit), .continueAfterCommit(operation)]
        case .nothingWritten:
            set(operation, to: .idle)
            // A next page that found the bottom moved starts again from the new one.
            return [.emit, .report(.superseded), .prefetch]
        case .cancelled:
            set(operation, to: .idle)
            return [.emit, .report(.superseded)]
        case .failed(let failure):
            set(operation, to: .failed(failure))
            return [.recordFailure(failure.error), .emit, .report(.failed, error: failure.error)]
        }
    }

    /// `operation`'s commit is in memory, and the feed's row is `record`.
    ///
    /// A refresh whose newest page was empty but points to older ones goes on with a next page, or
    /// the list would say "empty" while the server has items. Then, as after every commit, a reader
    /// near the bottom gets the next page.
    func committed(_ operation: Operation, record: FeedRecord) -> [Action<Never>] {
        if operation == .refresh, record.rowCount == 0, !record.endReached, record.oldestCursor != nil {
            return [.startNextPage, .prefetch]
        }
        return [.prefetch]
    }

    /// Takes a newer generation found in the file (another process refreshed the feed), so this
    /// process's next refresh is newer than it.
    mutating func adopt(fileGeneration: Int64) {
        generation = max(generation, fileGeneration)
    }

    /// Records that `operation` failed before any task could start (a refresh whose generation
    /// cannot grow, a closed store), so the failure shows and ``Feed/retry()`` has it.
    mutating func refused(_ operation: Operation, failure: Failure) -> [Action<Never>] {
        if case .loading = phase(of: operation) {} else { set(operation, to: .failed(failure)) }
        return [.emit, .report(.failed, error: failure.error)]
    }

    /// Forgets `operation`'s failure, when it has one: what failed no longer applies.
    mutating func forgetFailure(_ operation: Operation) {
        if case .failed = phase(of: operation) { set(operation, to: .idle) }
    }

    /// Forgets gap `id` whatever its phase (the app dismissed it): a fill in flight loses it, and its
    /// response is dropped.
    mutating func forgetGap(_ id: Int64) {
        gaps[id] = nil
    }

    /// Forgets the state of gaps that no longer exist (filled, trimmed, replaced by a refresh).
    ///
    /// A gap still loading is kept: its task ends on its own and finds the gap gone.
    mutating func keepGaps(_ existing: Set<Int64>) {
        gaps = gaps.filter { id, phase in
            if case .loading = phase { return true }
            return existing.contains(id)
        }
    }

    private mutating func set(_ operation: Operation, to phase: Phase) {
        switch operation {
        case .refresh: refresh = phase
        case .nextPage: nextPage = phase
        case .gap(let id): gaps[id] = phase == .idle ? nil : phase
        }
    }

    private mutating func newTask() -> TaskID {
        lastTaskID += 1
        return TaskID(value: lastTaskID)
    }
}

extension FeedActivity.Outcome: Sendable where Commit: Sendable {}
extension FeedActivity.Outcome: Equatable where Commit: Equatable {}
extension FeedActivity.Action: Sendable where Commit: Sendable {}
extension FeedActivity.Action: Equatable where Commit: Equatable {}

extension FeedActivity.Action where Commit == Never {
    /// This action as one of a driver whose actions may carry commits of type `Other`: it carries
    /// none, so it is the same action.
    func carrying<Other>(_: Other.Type) -> FeedActivity.Action<Other> {
        switch self {
        case .cancel(let tasks): .cancel(tasks)
        case .emit: .emit
        case .recordFailure(let error): .recordFailure(error)
        case .report(let kind, let error): .report(kind, error: error)
        case .continueAfterCommit(let operation): .continueAfterCommit(operation)
        case .startNextPage: .startNextPage
        case .prefetch: .prefetch
        }
    }
}
