import PagedStore

extension Outbox {
    /// Waits for the first status that meets `condition`, the current one included.
    @discardableResult
    func waitFor(_ condition: (OutboxStatus) -> Bool) async -> OutboxStatus? {
        for await status in states where condition(status) { return status }
        return nil
    }

    /// Waits until every queued edit settled.
    func waitUntilEmpty() async {
        await waitFor { $0.count == 0 }
    }
}

/// The argument of the tests' queued edits.
struct Revision: Codable, Sendable, Equatable {
    var revision: Int
}
