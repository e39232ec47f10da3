import Foundation

/// Ending a fetch's operation: its outcome told to the activity, and what the activity says performed.
extension Feed {
    /// Ends `task`'s operation with its outcome: a commit (nil when there was nothing this feed may
    /// write, because the response was superseded) or an error. The activity says what follows
    /// (see ``FeedActivity/finished(_:task:_:)``), and the feed performs it.
    func complete(
        _ operation: FeedActivity.Operation, task: FeedActivity.TaskID, _ request: PageRequest?, generation: Int64,
        since started: ContinuousClock.Instant, _ outcome: Result<Commit?, any Error>
    ) {
        var context = ActionContext(request: request, generation: generation, started: started)
        let ended: FeedActivity.Outcome
        switch outcome {
        case .success(let commit?):
            context.commit = commit
            ended = .committed
        case .success(nil): ended = .nothingWritten
        case .failure(let error) where Self.isCancellation(error): ended = .cancelled
        case .failure(let error): ended = .failed(FeedActivity.Failure(error: FeedError(error), at: .now))
        }
        let actions = activity.finished(operation, task: task, ended)
        perform(actions, context)
        if actions.contains(.applyCommit) { perform(activity.committed(operation, record: loaded.record), context) }
    }

    /// Whether a fetch ended because its task was cancelled, not because it failed.
    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let error = error as? URLError, error.code == .cancelled { return true }
        return Task.isCancelled
    }
}
