import Foundation

/// Performing what the activity's transitions return (``FeedActivity/Action``): the feed decides
/// nothing here, it only does.
extension Feed {
    /// What an action is performed with: the request, generation and start time its events carry,
    /// and the commit it applies.
    struct ActionContext {
        var request: PageRequest?
        var generation: Int64
        var started: ContinuousClock.Instant?
        var commit: Commit?
    }

    /// Performs `actions` in order.
    func perform(_ actions: [FeedActivity.Action], _ context: ActionContext) {
        for action in actions {
            switch action {
            case .cancel(let tasks):
                for task in tasks { running.tasks[task]?.cancel() }
            case .applyCommit:
                guard let commit = context.commit else { continue }
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
                report(
                    kind, context.request, generation: context.generation,
                    rows: kind == .committed ? context.commit?.change.touchedRows ?? 0 : 0, since: context.started,
                    error: error)
            case .startNextPage:
                startNextPage()
            case .prefetch:
                prefetchIfNearBottom()
            }
        }
    }
}
