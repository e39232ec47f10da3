public import Foundation
public import PagedStore
public import PagedStoreTesting

/// A list on screen following a feed, as an app's would: it subscribes to the feed's snapshots and
/// events, applies every snapshot's change to the rows before it as `performBatchUpdates` reads a
/// batch (where both snapshots hold every row), checks that it reloads every row whose content
/// changed (for an `Equatable` item), and counts what a live-following test reports: full reloads
/// and busy failures. It keeps only the newest snapshot, so a run of thousands of writes
/// costs no more memory than one.
public final class ObservedList<Item: FeedItem>: @unchecked Sendable {
    // @unchecked: every stored property below `lock` is guarded by it; the tasks are set once in init.
    private let lock = NSLock()
    private var latest: FeedSnapshot<Item>
    private var counts = Counts()
    private var problems: [String] = []
    private var waiters: [Waiter] = []
    private var tasks: [Task<Void, Never>] = []
    private let staleRows: (@Sendable (FeedSnapshot<Item>, FeedSnapshot<Item>) throws -> [IndexPath])?

    private var nextWaiter = 0

    private struct Waiter {
        let id: Int
        let accepts: @Sendable (FeedSnapshot<Item>) -> Bool
        let continuation: CheckedContinuation<FeedSnapshot<Item>?, Never>
    }

    /// What the list saw since it started observing.
    public struct Counts: Sendable, CustomStringConvertible {
        /// Snapshots received after the first.
        public var snapshots = 0
        /// Those whose change was a full reload.
        public var fullReloads = 0
        /// Of those, the ones that took the file's rows whole because the change record did not
        /// cover another writer's changes (``FeedEvent/Kind/reloadedFromFile``); the others are
        /// writes that replace the list (a refresh that met no cached row).
        public var reloadsFromFile: Int { reloadReasons.count }
        /// Why each of those reloads was taken (``FeedEvent/reason``), in order.
        public var reloadReasons: [String] = []
        /// `failed` events whose error is SQLite's busy error.
        public var busyFailures = 0

        /// The counts in words, for a test's output.
        public var description: String {
            "\(snapshots) snapshots, \(fullReloads) full reloads (\(reloadsFromFile) not covered by the change "
                + "record\(reloadReasons.isEmpty ? "" : ": " + reloadReasons.joined(separator: "; "))), "
                + "\(busyFailures) busy failures"
        }
    }

    /// Starts following `feed` from its current snapshot.
    public convenience init(_ feed: Feed<Item>) async {
        await self.init(feed, staleRows: nil)
    }

    /// Starts following `feed`; `staleRows` names the rows a change leaves showing old content.
    private init(
        _ feed: Feed<Item>,
        staleRows: (@Sendable (FeedSnapshot<Item>, FeedSnapshot<Item>) throws -> [IndexPath])?
    ) async {
        self.staleRows = staleRows
        let snapshots = await feed.snapshots
        let events = await feed.events
        latest = await feed.snapshot
        tasks = [
            Task { [weak self] in
                for await snapshot in snapshots { self?.receive(snapshot) }
                self?.finish()
            },
            Task { [weak self] in
                for await event in events {
                    if event.kind == .failed && event.error?.storageKind == .busy {
                        self?.lock.withLock { self?.counts.busyFailures += 1 }
                    } else if event.kind == .reloadedFromFile {
                        self?.lock.withLock { self?.counts.reloadReasons.append(event.reason ?? "no reason given") }
                    }
                }
            },
        ]
    }

    deinit { for task in tasks { task.cancel() } }

    /// The counts so far.
    public var seen: Counts { lock.withLock { counts } }

    /// Every change that did not turn the rows before it into its own rows, described.
    public var rejectedChanges: [String] { lock.withLock { problems } }

    /// Waits until the list shows a snapshot that `accepts` (the current one included) and returns
    /// it; nil if the feed's stream ended first or the waiting task was cancelled. Ordered by the
    /// feed's own snapshots: a test bounds it with a time limit (``firstSnapshot(within:where:)``),
    /// never with a sleep.
    public func firstSnapshot(
        where accepts: @escaping @Sendable (FeedSnapshot<Item>) -> Bool
    ) async -> FeedSnapshot<Item>? {
        let id = lock.withLock {
            nextWaiter &+= 1
            return nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: FeedSnapshot<Item>?? = lock.withLock {
                    if accepts(latest) { return .some(latest) }
                    // A cancellation that came before the waiter was added has nothing to remove.
                    if Task.isCancelled { return .some(nil) }
                    waiters.append(Waiter(id: id, accepts: accepts, continuation: continuation))
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = lock.withLock {
                waiters.firstIndex { $0.id == id }.map { waiters.remove(at: $0) }
            }
            waiter?.continuation.resume(returning: nil)
        }
    }

    /// ``firstSnapshot(where:)`` for at most `limit`: nil when no snapshot `accepts` came in time,
    /// for the caller to fail naming what it waited for (a hang then fails the step, not the suite's
    /// time limit, which names nothing).
    public func firstSnapshot(
        within limit: Duration, where accepts: @escaping @Sendable (FeedSnapshot<Item>) -> Bool
    ) async -> FeedSnapshot<Item>? {
        await waitingAtMost({ await self.firstSnapshot(where: accepts) }, limit: limit) ?? nil
    }

    private func receive(_ snapshot: FeedSnapshot<Item>) {
        let ready: [(Waiter, FeedSnapshot<Item>)] = lock.withLock {
            // The stream starts with the snapshot the list already shows: its change is from before.
            guard snapshot.sequence != latest.sequence else { return [] }
            let previous = latest
            latest = snapshot
            counts.snapshots += 1
            if snapshot.change.isFullReload { counts.fullReloads += 1 }
            if let problem = problem(applying: snapshot, to: previous) { problems.append(problem) }
            let ready = waiters.filter { $0.accepts(snapshot) }
            waiters.removeAll { $0.accepts(snapshot) }
            return ready.map { ($0, snapshot) }
        }
        for (waiter, snapshot) in ready { waiter.continuation.resume(returning: snapshot) }
    }

    private func finish() {
        let waiting = lock.withLock {
            defer { waiters.removeAll() }
            return waiters
        }
        for waiter in waiting { waiter.continuation.resume(returning: nil) }
    }

    /// Why `next`'s change does not apply to `previous`'s rows, or nil when it does (or when either
    /// snapshot holds rows outside its window, whose ids are unknown).
    private func problem(applying next: FeedSnapshot<Item>, to previous: FeedSnapshot<Item>) -> String? {
        guard previous.rows.loadedRange.count == previous.rows.count, next.rows.loadedRange.count == next.rows.count
        else { return nil }
        let old = previous.sectionedIDs
        let new = next.sectionedIDs
        do {
            let applied = try BatchUpdate.apply(next.change, to: old, new: new)
            guard applied == new else {
                return "snapshot \(next.sequence): the change \(next.change) gives \(applied), not \(new)"
            }
            guard let stale = try staleRows?(previous, next), !stale.isEmpty else { return nil }
            return "snapshot \(next.sequence): the change \(next.change) leaves rows \(stale) of \(new) "
                + "showing old content"
        } catch {
            return "snapshot \(next.sequence): UIKit would reject \(next.change) on \(old): \(error)"
        }
    }
}

extension ObservedList where Item: Equatable {
    /// Starts following `feed` from its current snapshot, checking that every change also reloads
    /// each row whose item changed.
    public convenience init(_ feed: Feed<Item>) async {
        await self.init(feed, staleRows: { try BatchUpdate.staleRows($1.change, from: $0.sectionedRows, to: $1) })
    }
}

extension BatchUpdate {
    /// The rows of `next` that its change, applied to `previous`'s rows, leaves showing their old
    /// items (see ``BatchUpdate/staleRows(_:from:to:id:)``).
    public static func staleRows<Item: FeedItem & Equatable>(
        _ change: FeedChange, from previous: [[Item?]], to next: FeedSnapshot<Item>
    ) throws -> [IndexPath] {
        try staleRows(change, from: previous, to: next.sectionedRows) { $0?.storedID ?? notLoaded }
    }
}

/// What a row outside a snapshot's window reads as, in the lists of ids tests compare.
private let notLoaded = "<not loaded>"

extension FeedSnapshot {
    /// The ids of every row, section by section (rows outside the window read `<not loaded>`).
    public var sectionedIDs: [[String]] {
        sections.map { section in
            (section.firstRow..<(section.firstRow + section.rowCount)).map { rows.id(at: $0) ?? notLoaded }
        }
    }

    /// The items of every row, section by section (nil outside the window).
    public var sectionedRows: [[Item?]] {
        sections.map { section in (section.firstRow..<(section.firstRow + section.rowCount)).map { rows[$0] } }
    }
}
