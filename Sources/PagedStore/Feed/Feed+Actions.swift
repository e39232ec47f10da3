import Foundation

/// Performing what the activity's transitions return (``FeedActivity/Action``): the feed decides
/// nothing here, it only does.
extension Feed {
    /// What the actions of one event are performed with: the request, generation and start time the
    /// event carries.
    struct ActionContext {
        var request: PageRequest?
        var generation: Int64
        var started: ContinuousClock.Instant?
    }

    /// Performs `actions` in order.
    func perform(_ actions: [FeedActivity.Action<Commit>], _ context: ActionContext) {
        for action in actions {
            switch action {
            case .cancel(let tasks):
                for task in tasks { running.tasks[task]?.cancel() }
            case .applyCommit(let commit):
                do {
                    try apply(commit)
                } catch {
                    // The page is committed; only reading it back failed. The next change reads again.
                    recordError(FeedError(error))
                    emit()
                }
            case .emit:
                emit()
            case .recordFailure(let error):
                recordError(error)
            case .report(let kind, let error):
                report(kind, context.request, generation: context.generation, since: context.started, error: error)
            case .reportCommitted(let commit):
                report(
                    .committed, context.request, generation: context.generation, rows: commit.change.touchedRows,
                    since: context.started)
            case .continueAfterCommit(let operation):
                perform(activity.committed(operation, record: loaded.record), context)
            case .startNextPage:
                startNextPage()
            case .prefetch:
                prefetchIfNearBottom()
            }
        }
    }

    /// Performs `actions` of a transition that applies no commit.
    func perform(_ actions: [FeedActivity.Action<Never>], _ context: ActionContext) {
        perform(actions.map { $0.carrying(Commit.self) }, context)
    }
}
