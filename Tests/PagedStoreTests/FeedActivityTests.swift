import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The activity state machine alone: no SQLite, no network.
@Suite(.limit(minutes: 3)) struct FeedActivityTests {
    /// A task's end, with a page name standing for the driver's commit.
    typealias Outcome = FeedActivity.Outcome<String>

    let failure = FeedActivity.Failure(error: FeedError(.source, message: "offline"), at: .now)

    /// What the activity says after `commit` of `operation`: apply it, report it, then ask what follows.
    func applying(_ commit: String, of operation: FeedActivity.Operation) -> [FeedActivity.Action<String>] {
        [.applyCommit(commit), .reportCommitted(commit), .continueAfterCommit(operation)]
    }

    @Test func aRefreshTakesGapFillsAwayButLetsTheNextPageGoOn() throws {
        var activity = FeedActivity(generation: 0)
        let nextResult = activity.nextPageStarted()
        let next = try #require(nextResult)
        let gapResult = activity.gapStarted(7, from: .top)
        let gap = try #require(gapResult)
        let refreshResult = activity.refreshStarted()
        let refresh = try #require(refreshResult)
        #expect(refresh.generation == 1)
        #expect(refresh.actions == [.cancel([gap]), .emit, .report(.requestStarted)])
        #expect(activity.nextPage == .loading(next), "the next page commits where it still continues the bottom")
        #expect(activity.phase(of: .gap(7)) == .idle)
        #expect(activity.finished(.gap(7), task: gap, Outcome.failed(failure)) == [.report(.superseded)])
        #expect(activity.failures.isEmpty, "a superseded failure changes nothing")
        #expect(Set(activity.runningTasks) == [refresh.task, next])
        #expect(
            activity.finished(.nextPage, task: next, Outcome.committed("page 2")) == applying("page 2", of: .nextPage))
    }

    @Test func loadingAlwaysHasItsTaskInFlight() throws {
        var activity = FeedActivity(generation: 0)
        let nextResult = activity.nextPageStarted()
        let next = try #require(nextResult)
        #expect(activity.nextPageStarted() == nil, "a second next page joins the first")
        #expect(activity.nextPage == .loading(next))
        #expect(
            activity.finished(.nextPage, task: next, Outcome.committed("page 2")) == applying("page 2", of: .nextPage))
        #expect(activity.nextPage == .idle)
        #expect(activity.runningTasks.isEmpty)
    }

    @Test func aFailureIsReplacedWholeAndEachKeepsItsOwnRetryAfter() throws {
        var activity = FeedActivity(generation: 0)
        let start = ContinuousClock.now
        let throttled = FeedActivity.Failure(error: FeedError(.source, message: "503", retryAfter: 30), at: start)
        let refreshResult = activity.refreshStarted()
        let refresh = try #require(refreshResult)
        _ = activity.finished(.refresh, task: refresh.task, Outcome.failed(throttled))
        let gapResult = activity.gapStarted(3, from: .top)
        let gap = try #require(gapResult)
        _ = activity.finished(.gap(3), task: gap, Outcome.failed(FeedActivity.Failure(error: failure.error, at: start)))
        let failures = activity.failures
        #expect(failures.map(\.operation) == [.refresh, .gap(3)])
        #expect(failures[0].failure.retryNotBefore == start.advanced(by: .seconds(30)))
        #expect(failures[1].failure.retryNotBefore == start, "the gap's failure had no Retry-After")
        let againResult = activity.refreshStarted()
        let again = try #require(againResult)
        _ = activity.finished(.refresh, task: again.task, Outcome.committed("page 1"))
        #expect(activity.failures.map(\.operation) == [.gap(3)], "a success clears its own failure only")
    }

    @Test func aGenerationAtItsLargestValueRefusesToStartInsteadOfTrapping() {
        var activity = FeedActivity(generation: .max)
        #expect(activity.refreshStarted() == nil)
        #expect(activity.refused(.refresh, failure: failure) == [.emit, .report(.failed, error: failure.error)])
        #expect(activity.failures.map(\.operation) == [.refresh])
    }

    @Test func aHugeOrInvalidRetryAfterNeverTraps() {
        for seconds in [Double.infinity, .nan, -5, 1e300] {
            let failure = FeedActivity.Failure(
                error: FeedError(.source, message: "x", retryAfter: seconds), at: .now)
            #expect(failure.retryNotBefore <= .now.advanced(by: .seconds(86_401)))
        }
    }

    @Test func gapsThatNoLongerExistForgetTheirStateUnlessLoading() throws {
        var activity = FeedActivity(generation: 0)
        let failedResult = activity.gapStarted(1, from: .top)
        let failed = try #require(failedResult)
        _ = activity.finished(.gap(1), task: failed, Outcome.failed(failure))
        let loadingResult = activity.gapStarted(2, from: .top)
        let loading = try #require(loadingResult)
        activity.keepGaps([])
        #expect(activity.phase(of: .gap(1)) == .idle)
        #expect(activity.phase(of: .gap(2)) == .loading(loading))
    }

    @Test func eachEndOfATaskSaysWhatFollowsInOrder() throws {
        var activity = FeedActivity(generation: 0)
        let nextResult = activity.nextPageStarted()
        let next = try #require(nextResult)
        #expect(
            activity.finished(.nextPage, task: next, Outcome.nothingWritten) == [
                .emit, .report(.superseded), .prefetch,
            ],
            "a next page that found the bottom moved starts again from the new one, if the reader is there")
        let cancelledResult = activity.nextPageStarted()
        let cancelled = try #require(cancelledResult)
        #expect(activity.finished(.nextPage, task: cancelled, Outcome.cancelled) == [.emit, .report(.superseded)])
        let failingResult = activity.nextPageStarted()
        let failing = try #require(failingResult)
        #expect(
            activity.finished(.nextPage, task: failing, Outcome.failed(failure))
                == [.recordFailure(failure.error), .emit, .report(.failed, error: failure.error)])
        #expect(
            activity.finished(.nextPage, task: failing, Outcome.committed("late")) == [.report(.superseded)],
            "ended already: its commit is never applied")
    }

    @Test func anEmptyNewestPageThatPointsFurtherGoesOnWithANextPage() {
        let activity = FeedActivity(generation: 0)
        var record = FeedRecord(
            id: 1, key: "home", newestCursor: nil, oldestCursor: "older", endReached: false, rowCount: 0,
            topPosition: nil, bottomPosition: nil, lastRefreshAt: nil, lastError: nil, generation: 1, loaded: true,
            hasSections: false, policy: nil)
        #expect(activity.committed(.refresh, record: record) == [.startNextPage, .prefetch])
        record.endReached = true
        #expect(activity.committed(.refresh, record: record) == [.prefetch])
        record.endReached = false
        #expect(activity.committed(.nextPage, record: record) == [.prefetch], "only a refresh goes on by itself")
    }

    @Test func aGapWhoseFillsBringNothingNewStopsAtTheLimitAndRetriesFromItsLastEnd() {
        var activity = FeedActivity(generation: 0)
        let started = activity.gapStarted(4, from: .bottom)
        #expect(started != nil)
        #expect(activity.lastEnd(ofGap: 4) == .bottom)
        #expect(activity.gapFilled(4, broughtNothingNew: true, limit: 3) == nil)
        #expect(activity.gapFilled(4, broughtNothingNew: true, limit: 3) == nil)
        #expect(activity.gapFilled(4, broughtNothingNew: true, limit: 3) == 3)
        #expect(activity.gapFilled(4, broughtNothingNew: true, limit: 3) == nil, "the count starts again")
        #expect(activity.gapFilled(4, broughtNothingNew: false, limit: 3) == nil)
    }

    @Test func aCommittedRefreshIsAppliedAndReportedBeforeWhatFollowsIsAsked() throws {
        var activity = FeedActivity(generation: 0)
        let refreshResult = activity.refreshStarted()
        let refresh = try #require(refreshResult)
        #expect(
            activity.finished(.refresh, task: refresh.task, Outcome.committed("page 1"))
                == applying("page 1", of: .refresh))
        #expect(activity.refresh == .idle)
    }

    @Test func actionsOfATransitionWithoutACommitCarryOverUnchanged() {
        let actions: [FeedActivity.Action<Never>] = [
            .cancel([FeedActivity.TaskID(value: 3)]), .emit, .recordFailure(failure.error),
            .report(.failed, error: failure.error), .continueAfterCommit(.gap(2)), .startNextPage, .prefetch,
        ]
        #expect(
            actions.map { $0.carrying(String.self) }
                == [
                    .cancel([FeedActivity.TaskID(value: 3)]), .emit, .recordFailure(failure.error),
                    .report(.failed, error: failure.error), .continueAfterCommit(.gap(2)), .startNextPage, .prefetch,
                ])
    }
}
