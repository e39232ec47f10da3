/// Runs `wait` until it returns, or until `limit` has passed: then it is cancelled and the result is
/// nil, for the caller to fail with what it waited for. A hang becomes a failure that names the wait
/// (and a model's seed and step) rather than the suite's time limit, which names nothing.
///
/// The limit orders nothing: a wait that ends, ends long before it. `wait` must end when cancelled
/// (a `for await` over a feed's or an outbox's stream does).
public func waitingAtMost<Result: Sendable>(
    _ wait: @escaping @Sendable () async -> Result, limit: Duration = .seconds(120)
) async -> Result? {
    await withTaskGroup(of: Result?.self) { group in
        group.addTask { await wait() }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
