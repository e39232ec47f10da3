import Foundation

/// What a feed does once its store is closed (``FeedStore/close()``).
extension Feed {
    /// The error every operation of a feed of a closed store fails with.
    static var closedError: FeedError { FeedError(StorageError.closed) }

    /// Fails `operation` before anything is fetched when the store is closed (``closedError``: a
    /// closed store must not send the user's credentials anywhere) or read-only (``readOnlyError``:
    /// what it fetched could never be written). Returns whether it did.
    func refusedBeforeFetching(_ operation: FeedActivity.Operation) -> Bool {
        let error: FeedError
        if queue.isClosed {
            error = Self.closedError
        } else if queue.isReadOnly {
            error = Self.readOnlyError
        } else {
            return false
        }
        let actions = activity.refused(operation, failure: FeedActivity.Failure(error: error, at: clock.now()))
        perform(actions, ActionContext(request: nil, generation: activity.generation))
        return true
    }
}
