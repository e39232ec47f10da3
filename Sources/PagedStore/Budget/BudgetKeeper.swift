import Foundation

/// Keeps a store's file within its ``StoreBudget``: after each write of a feed it looks at the
/// file's size (one pragma), and when the file is over the budget it evicts by ``EvictionRule`` in
/// one write through ``StoreWriter`` (every feed changed records its change, so open lists follow
/// it exactly), then gives the freed pages back to the file system.
///
/// It runs synchronously on the writing feed's executor, after that feed's transaction committed: no
/// transaction is held across an `await`, and the feeds of the store (which share the executor) do
/// not move their windows meanwhile. The feed that just wrote keeps all its rows this time: its list
/// has not taken them yet. An in-memory store has no file to keep small and no list registry; the
/// keeper does nothing there.
final class BudgetKeeper: @unchecked Sendable {
    // @unchecked: `subscribers`, `nextSubscriber`, `agesChecked` and `pageSize` are only touched
    // with `lock` held.
    let budget: StoreBudget
    private let lock = NSLock()
    private var subscribers: [Int: AsyncStream<StoreEviction>.Continuation] = [:]
    private var nextSubscriber = 0
    private var agesChecked = false
    private var pageSize: Int64 = 0
    /// Who the keeper's writes come from, among the open lists of the process: a follower id of its
    /// own, so every list of a feed it changes is told.
    private let follower = LiveFeeds.shared.newFollower()
    /// How many evictions one check makes at most when the size estimates fall short.
    private static let rounds = 3

    /// The store's clock, which says how long a feed has gone unopened.
    private let clock: StoreClock

    init(budget: StoreBudget, clock: StoreClock) {
        self.budget = budget
        self.clock = clock
    }

    /// The evictions from now on, for ``FeedStore/evictions``.
    func evictions() -> AsyncStream<StoreEviction> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreEviction.self)
        let id = lock.withLock {
            nextSubscriber += 1
            subscribers[nextSubscriber] = continuation
            return nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.lock.withLock { self?.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Checks the file after a write of `writing` and evicts when it is over the budget (or, the
    /// first time, when a feed is older than the maximum age). A failure is left to the next write:
    /// the write that triggered the check has committed already.
    func keepWithinBudget(_ queue: DatabaseQueue, writing: String?) {
        _ = try? keep(queue, writing: writing, force: false)
    }

    /// Checks the file and evicts what the budget requires; with `force`, evicts to the target and
    /// gives free pages back even when the file is within its budget.
    /// - Returns: What was done, as reported to ``evictions()``.
    @discardableResult
    func keep(_ queue: DatabaseQueue, writing: String?, force: Bool) throws -> [StoreEviction] {
        guard let file = queue.file, !queue.isReadOnly else { return [] }
        let checkAges = lock.withLock { () -> Bool in
            defer { agesChecked = true }
            return !agesChecked && budget.maxUnopenedAge != nil
        }
        let over = try isOverBudget(queue)
        guard force || checkAges || over else { return [] }
        var done: [StoreEviction] = []
        for _ in 0..<Self.rounds {
            let evicted = try evict(queue, file: file, writing: writing)
            done += evicted
            if force || over || !evicted.isEmpty { done += try shrink(queue) }
            guard !evicted.isEmpty, try isOverBudget(queue) else { break }
        }
        report(done)
        return done
    }

    /// Whether the file's pages take more than the budget: one pragma once the page size is known.
    private func isOverBudget(_ queue: DatabaseQueue) throws -> Bool {
        let known = lock.withLock { pageSize }
        let pages = try queue.withoutTransaction { store in try store.connection.int64("PRAGMA page_count") } ?? 0
        var size = known
        if size == 0 {
            size = try queue.withoutTransaction { store in try store.connection.int64("PRAGMA page_size") } ?? 0
            lock.withLock { pageSize = size }
        }
        return pages.multipliedReportingOverflow(by: size).partialValue > budget.maxBytes
    }

    /// One write that evicts and trims what ``EvictionRule`` says, recording each feed's change.
    private func evict(_ queue: DatabaseQueue, file: FileIdentity, writing: String?) throws -> [StoreEviction] {
        // Not kept within the budget again: this write is the keeper's.
        try StoreWriter(queue: queue, budget: nil, clock: clock).transaction(by: follower) { store in
            let facts = try Self.facts(in: store, file: file, writing: writing)
            let used = try store.fileSpace().usedBytes
            let (steps, stillToFree) = EvictionRule.evictions(
                facts.map(\.rule), usedBytes: used, budget: budget, now: clock.date())
            var done: [StoreEviction] = []
            var written: [RecordedWrite] = []
            let byKey = Dictionary(facts.map { ($0.rule.key, $0) }, uniquingKeysWith: { first, _ in first })
            var evicted = Set<String>()
            for case .evict(let key, let reason) in steps {
                guard let fact = byKey[key] else { continue }
                var feed = fact.feed
                try store.clearFeed(&feed)
                evicted.insert(key)
                written.append(
                    RecordedWrite(
                        before: fact.feed, after: feed, change: RowChange(deleted: Array(0..<fact.feed.rowCount))))
                done.append(
                    StoreEviction(
                        kind: reason == .unopenedTooLong ? .evictedUnopened : .evictedOverBudget, feedKey: key,
                        rows: fact.feed.rowCount, bytes: fact.rule.bytes))
            }
            guard stillToFree > 0 else { return (done, written) }
            var remaining: [EvictionRule.Feed] = []
            for fact in facts where !evicted.contains(fact.rule.key) && fact.feed.rowCount > 0 {
                var rule = fact.rule
                rule.pages = try store.pages(of: fact.feed)
                remaining.append(rule)
            }
            let pagesByKey = Dictionary(remaining.map { ($0.key, $0.pages) }, uniquingKeysWith: { first, _ in first })
            for case .trim(let key, let keep, let rows) in EvictionRule.trims(remaining, toFree: stillToFree) {
                guard let fact = byKey[key], let pages = pagesByKey[key] else { continue }
                var feed = fact.feed
                let removed = try store.cut(&feed, keepingPages: keep, of: pages)
                guard removed > 0 else { continue }
                written.append(
                    RecordedWrite(
                        before: fact.feed, after: feed,
                        change: RowChange(deleted: Array(feed.rowCount..<fact.feed.rowCount))))
                let bytes = fact.rule.bytes / Int64(max(fact.feed.rowCount, 1)) * Int64(rows)
                done.append(StoreEviction(kind: .trimmed, feedKey: key, rows: removed, bytes: bytes))
            }
            return (done, written)
        }
    }

    /// A feed as the rule sees it, with its row.
    private struct Fact {
        var feed: FeedRecord
        var rule: EvictionRule.Feed
    }

    /// Every feed of the file with its size, last open, and the rows that must stay: an open list's
    /// loaded rows (all of them for the feed that just wrote), and the rows its pending edits name.
    private static func facts(in store: PageStore, file: FileIdentity, writing: String?) throws -> [Fact] {
        let open = LiveFeeds.shared.keptRows(in: file)
        return try store.feedUses().map { use in
            var kept = open[use.feed.key] ?? 0
            if use.feed.key == writing { kept = use.feed.rowCount }
            if use.hasPendingEdits, let row = try store.deepestPendingEditRow(in: use.feed) {
                kept = max(kept, row + 1)
            }
            let rule = EvictionRule.Feed(
                key: use.feed.key, rows: use.feed.rowCount, bytes: use.bytes, openedAt: use.openedAt,
                isOpen: open[use.feed.key] != nil || use.feed.key == writing, hasPendingEdits: use.hasPendingEdits,
                keptRows: min(kept, use.feed.rowCount))
            return Fact(feed: use.feed, rule: rule)
        }
    }

    /// Gives the free pages back to the file system; a file not yet incremental is converted by one
    /// `VACUUM` (see ``PageStore/vacuum()``).
    private func shrink(_ queue: DatabaseQueue) throws -> [StoreEviction] {
        try queue.withoutTransaction { store in
            let before = try store.fileSpace()
            guard before.freePages > 0 || !before.isIncremental else { return [] }
            if before.isIncremental { try store.releaseFreePages() } else { try store.vacuum() }
            let shrunk = before.bytes - (try store.fileSpace().bytes)
            return shrunk > 0 ? [StoreEviction(kind: .shrunk, feedKey: nil, rows: 0, bytes: shrunk)] : []
        }
    }

    private func report(_ evictions: [StoreEviction]) {
        guard !evictions.isEmpty else { return }
        let streams = lock.withLock { Array(subscribers.values) }
        for stream in streams {
            for eviction in evictions { stream.yield(eviction) }
        }
    }
}
