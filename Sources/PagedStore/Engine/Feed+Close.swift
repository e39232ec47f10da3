import Foundation

/// What a feed does once its store is closed (``FeedStore/close()``).
extension Feed {
    /// The error every operation of a feed of a closed store fails with.
    static var closedError: FeedError { FeedError(StorageError.closed) }

    /// Fails `operation` with ``closedError`` when the store is closed, before anything is fetched: a
    /// closed store must not send the user's credentials anywhere. Returns whether it did.
    func refusedBecauseClosed(_ operation: FeedActivity.Operation) -> Bool {
        guard queue.isClosed else { return false }
        let actions = activity.refused(operation, failure: FeedActivity.Failure(error: Self.closedError, at: .now))
        perform(actions, ActionContext(request: nil, generation: activity.generation))
        return true
    }
}
