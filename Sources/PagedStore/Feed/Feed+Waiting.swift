import Foundation

/// How a feed waits for what it does not control, so that a cancelled caller and a closed store
/// end the wait at once.
extension Feed {
    /// Fetches `request` from the source, for as long as the caller waits and the store is open.
    ///
    /// The fetch runs in a task of its own, on the feed: when the caller is cancelled (a SwiftUI
    /// `.task` whose view went away) this throws `CancellationError` at once and cancels the fetch,
    /// and when the store closes it throws ``StorageError/Kind/closed``, even from a source that
    /// ignores cancellation. A response that arrives later is dropped.
    ///
    /// The task starts at once, on the feed, before this call waits: a source that answers without
    /// suspending (a cache, a test's script) has answered by then, and the caller goes on with no
    /// hop through the feed's executor. Where the platform has no immediate task, it is enqueued.
    /// Either way it starts once cancelling the caller answers the wait: a caller cancelled while
    /// the source works out its answer is answered with `CancellationError`, and the page dropped.
    func fetch(_ request: PageRequest) async throws -> Page<Item> {
        try Task.checkCancellation()
        let answer = FirstAnswer<Page<Item>>()
        guard let closing = queue.onClose({ answer.give(.failure(StorageError.closed)) }) else {
            throw StorageError.closed
        }
        defer { queue.removeCloseHandler(closing) }
        var fetching: Task<Void, Never>?
        defer { fetching?.cancel() }
        return try await answer.value {
            if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
                fetching = Task.immediate { await fetch(request, answering: answer) }
            } else {
                fetching = Task { await fetch(request, answering: answer) }
            }
        }
    }

    /// Asks the source, on the feed's executor (so fetches start in the order they were asked),
    /// and gives its answer.
    private func fetch(_ request: PageRequest, answering answer: FirstAnswer<Page<Item>>) async {
        do {
            answer.give(.success(try await source.fetch(request)))
        } catch {
            answer.give(.failure(error))
        }
    }

    /// Waits as one of its callers for the next page `id`: until it ends, or until this caller is
    /// cancelled.
    ///
    /// A next page that callers started is cancelled when the last caller waiting for it is: nobody
    /// wants it any more, its activity goes back to idle, and the reader's next ``rowDidAppear(_:)``
    /// at the bottom starts another. One that a prefetch started goes on whoever leaves: the reader
    /// at the bottom still wants it.
    func waitForNextPage(_ id: FeedActivity.TaskID, _ task: Task<Void, Never>, startedByCaller: Bool) async {
        if startedByCaller { running.nextPageCallers[id] = 0 }
        running.nextPageCallers[id]? += 1
        let ended = (try? await running.wait(for: id).value()) != nil
        guard let callers = running.nextPageCallers[id] else { return }
        guard callers <= 1 else {
            running.nextPageCallers[id] = callers - 1
            return
        }
        running.nextPageCallers[id] = nil
        if !ended {
            task.cancel()
            await task.value
        }
    }
}
