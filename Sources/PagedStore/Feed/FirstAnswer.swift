import Foundation

/// The answer to one wait that several parties may end: the work waited for finishing, the waiting
/// task being cancelled, the store closing. The first answer wins; later ones are dropped.
///
/// A feed waits through it for what it does not control (a source's fetch, a shared next page), so
/// that a cancelled caller or a closed store ends the wait at once, even when the work itself does
/// not answer its cancellation.
final class FirstAnswer<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `state` is only touched with `lock` held.
    private enum State {
        case waiting(CheckedContinuation<Value, any Error>?)
        case answered(Result<Value, any Error>)
    }

    private let lock = NSLock()
    private var state = State.waiting(nil)

    /// Answers the wait, unless it was answered already.
    func give(_ result: Result<Value, any Error>) {
        let continuation: CheckedContinuation<Value, any Error>? = lock.withLock {
            guard case .waiting(let continuation) = state else { return nil }
            state = .answered(result)
            return continuation
        }
        continuation?.resume(with: result)
    }

    /// Waits for the first answer (call it once); cancelling the waiting task answers with
    /// `CancellationError`. It runs on the caller's executor (a feed's), named by `isolation`: the
    /// wait hops nowhere.
    /// - Parameter start: Starts the work waited for, once cancelling the task answers the wait: work
    ///   that runs before it suspends (a source that answers at once) cannot slip past a
    ///   cancellation that came meanwhile.
    func value(
        isolation: isolated (any Actor)? = #isolation, startingWith start: () -> Void = {}
    ) async throws -> Value {
        // The closure names `isolation`, which makes it isolated to the caller: a closure that does not
        // is nonisolated, and its wait would resume on the global pool and hop back to the caller.
        try await withTaskCancellationHandler {
            start()
            return try await withCheckedThrowingContinuation(isolation: isolation) { continuation in
                let answered: Result<Value, any Error>? = lock.withLock {
                    if case .answered(let result) = state { return result }
                    state = .waiting(continuation)
                    return nil
                }
                if let answered { continuation.resume(with: answered) }
            }
        } onCancel: {
            give(.failure(CancellationError()))
        }
    }
}
