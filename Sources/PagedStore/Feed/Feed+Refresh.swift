import Foundation

/// Opening, refreshing and retrying.
extension Feed {
    /// Trims the feed to its policy's limits and refreshes it if the policy says so.
    ///
    /// Call it once when the list appears. The snapshot already holds the cached rows before this is
    /// called: offline, the list shows them and the refresh fails into ``RefreshActivity/failed(_:)``.
    public func start() async {
        // A read-only store shows the cached rows and follows others' writes: nothing to fetch.
        guard !queue.isReadOnly else { return }
        trimToLimits()
        if loaded.record.searchBacklog != nil { Task { await indexSearchBacklog() } }
        if loaded.record.searchFields != nil { Task { await repairSearchIndex() } }
        switch policy.refreshOnOpen {
        case .always:
            await refresh()
        case .whenOlderThan(let seconds):
            // A refresh time in the future (the clock was ahead when it was written) is no proof of
            // freshness: only an age from zero up to the limit skips the refresh.
            if let last = loaded.record.lastRefreshAt, (0..<seconds).contains(clock.date().timeIntervalSince(last)) {
                return
            }
            await refresh()
        case .never:
            return
        }
    }

    /// Fetches the newest page and merges it on top of the cached rows (pull-to-refresh).
    ///
    /// A refresh supersedes a refresh or gap fill still in flight: it is dropped when its response
    /// arrives, unwritten and unemitted, and its activity goes back to idle at once. A next page in
    /// flight goes on and commits if the refresh kept the bottom it continues; when the refresh
    /// replaced it, the next page starts again from the new bottom if the reader is still there. New items above the cached head are inserted at rows `0..<k`; changed
    /// items of the overlap are reloads; items the server no longer lists within the overlap are
    /// deletions. Without overlap the policy's ``FeedPolicy/GapPolicy`` decides. A refresh with
    /// nothing new writes no page. With ``FeedPolicy/autoFillGapPages``, the gap a refresh made is
    /// then filled up to that many pages. Returns when this refresh is committed, failed or
    /// superseded (and its gaps filled); a cancelled caller returns at once, and its refresh is dropped.
    public func refresh() async {
        if Task.isCancelled || refusedBeforeFetching(.refresh) { return }
        let gapsBefore = Set(loaded.gaps.map(\.record.id))
        await refreshOnce()
        await autoFillGaps(madeAfter: gapsBefore)
    }

    /// The refresh itself, without the gap filling that may follow it.
    private func refreshOnce() async {
        // The file's generation first: a refresh another `Feed` committed makes this one's newer still.
        syncWithFileRecordingErrors()
        guard let started = activity.refreshStarted() else {
            let error = FeedError(
                .storage,
                message: "The feed's refresh generation is at its largest value (the cache file was edited); "
                    + "delete the feed to start it again",
                storageKind: .corrupt)
            let actions = activity.refused(.refresh, failure: FeedActivity.Failure(error: error, at: clock.now()))
            return perform(actions, ActionContext(request: .first, generation: activity.generation))
        }
        perform(started.actions, ActionContext(request: .first, generation: started.generation))
        let refreshStarted = clock.now()
        let outcome: Result<Commit?, any Error>
        do {
            var committedNewer = false
            if case .newerThanHead(let maxPages) = policy.refreshMode, loaded.record.rowCount > 0,
                let newest = loaded.record.newestCursor
            {
                let newer = try await refreshNewer(
                    than: newest, maxPages: maxPages, task: started.task, generation: started.generation)
                committedNewer = newer.committed
                if let reached = newer.reached {
                    return complete(
                        .refresh, task: started.task, .first, generation: started.generation, since: refreshStarted,
                        .success(reached))
                }
            }
            // A newer generation found in the file (another `Feed` refreshed) ends this refresh too.
            if activity.owns(started.task, .refresh), activity.generation == started.generation {
                let page = try await fetch(.first)
                outcome = .success(
                    activity.owns(started.task, .refresh)
                        ? try commitRefresh(
                            page, task: started.task, generation: started.generation, continuing: committedNewer)
                        : nil)
            } else {
                outcome = .success(nil)
            }
        } catch {
            outcome = .failure(error)
        }
        complete(.refresh, task: started.task, .first, generation: started.generation, since: refreshStarted, outcome)
    }

    /// Asks for what is newer than the cached head, page after page, committing each on top (so the
    /// list grows as pages arrive), until the server answers with nothing newer.
    ///
    /// Each committed page's newer cursor becomes the feed's. A page that reaches the head without
    /// one leaves the feed's cursor behind its head, so a later refresh's first answer can hold only
    /// posts the feed has: when its newer cursor moved on, that is no proof of the head, and it is
    /// followed like any other page (bounded by `maxPages`, and by never asking a cursor twice).
    ///
    /// - Returns: `reached`: the last commit once the server said nothing is newer (the caller
    ///   completes the refresh with it); nil when the refresh lost its place or `maxPages` pages did
    ///   not reach the newest items (the caller then fetches the first page). `committed`: whether a
    ///   page was written, so later writes of this refresh continue its generation.
    private func refreshNewer(
        than cursor: String, maxPages: Int, task: FeedActivity.TaskID, generation: Int64
    ) async throws -> (reached: Commit?, committed: Bool) {
        var cursor = cursor
        var cursorsAsked: Set<String> = [cursor]
        var committed = false
        for _ in 0..<max(maxPages, 1) {
            let request = PageRequest.newerThan(cursor: cursor)
            report(.requestStarted, request, generation: generation)
            let started = clock.now()
            let page = try await fetch(request)
            guard activity.owns(task, .refresh),
                let commit = try commitNewer(
                    page, askedWith: cursor, task: task, generation: generation, continuing: committed)
            else { return (nil, committed) }
            committed = true
            // No way further up, or only back to a cursor already asked: the server's own answer
            // says the head is the newest.
            guard let next = page.newerCursor, cursorsAsked.insert(next).inserted else { return (commit, committed) }
            if commit.movesOnlyTheRecord {
                loaded.record = commit.record  // only the newer cursor moved: nothing to emit
            } else {
                try apply(commit)
            }
            report(.committed, request, generation: generation, rows: commit.change.touchedRows, since: started)
            cursor = next
        }
        return (nil, committed)
    }

    /// Repeats every operation that failed: the refresh, the next page, and the fill of each failed gap.
    ///
    /// When the server asked to wait (HTTP `Retry-After`, see ``FeedError/retryAfter``), each retry
    /// waits out what remains of its own failure's time first; an operation that succeeded or
    /// started again meanwhile is not repeated.
    public func retry() async {
        let failures = activity.failures.sorted { $0.failure.retryNotBefore < $1.failure.retryNotBefore }
        for (operation, failure) in failures {
            do {
                if failure.retryNotBefore > clock.now() { try await clock.sleep(failure.retryNotBefore) }
            } catch {
                return  // the caller was cancelled: it waits for nothing more
            }
            guard !Task.isCancelled else { return }
            guard activity.phase(of: operation) == .failed(failure) else { continue }
            switch operation {
            case .refresh: await refresh()
            case .nextPage: await loadNextPage()
            case .gap(let id): await fillGap(id: id, from: activity.lastEnd(ofGap: id))
            }
        }
    }
}
