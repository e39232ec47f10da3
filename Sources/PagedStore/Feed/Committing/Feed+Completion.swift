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
        let actions = activity.finished(operation, task: task, Self.ended(outcome, at: clock.now()))
        perform(actions, ActionContext(request: request, generation: generation, started: started))
    }

    /// A task's result, ended at `now`, as the activity takes it.
    static func ended(
        _ outcome: Result<Commit?, any Error>, at now: ContinuousClock.Instant
    ) -> FeedActivity.Outcome<Commit> {
        switch outcome {
        case .success(let commit?): .committed(commit)
        case .success(nil): .nothingWritten
        case .failure(let error) where isCancellation(error): .cancelled
        case .failure(let error): .failed(FeedActivity.Failure(error: FeedError(error), at: now))
        }
    }

    /// Whether a fetch ended because its task was cancelled, not because it failed.
    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let error = error as? URLError, error.code == .cancelled { return true }
        return Task.isCancelled
    }
}
