import PagedStore
import TestSupport
import Testing

/// What an outbox's `states` sent since the log was made, as a badge shows it: waiting on it never
/// asks the outbox anything (which would make it read the file by itself), so it shows whether the
/// outbox follows what others write.
final class OutboxStatusLog: Sendable {
    private let latest = Locked<OutboxStatus?>(nil)
    private let arrivals: AsyncStream<Void>

    init(_ outbox: Outbox) async {
        let states = await outbox.states
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.arrivals = arrivals
        Task { [latest] in
            for await status in states {
                latest.value = status
                arrived.yield()
            }
            arrived.finish()
        }
    }

    /// Waits until the last status sent meets `condition` (one waiter at a time); false when the
    /// outbox's stream ended first.
    @discardableResult
    func waitFor(_ condition: (OutboxStatus) -> Bool) async -> Bool {
        if let status = latest.value, condition(status) { return true }
        for await _ in arrivals {
            if let status = latest.value, condition(status) { return true }
        }
        return false
    }

    /// ``waitFor(_:)`` for at most `limit`. When no status meets `condition` in time, records an
    /// issue naming `waitedFor` and the last status sent: a hang fails the step that waited, not the
    /// suite's time limit.
    func expectStatus(
        _ waitedFor: String, within limit: Duration = .seconds(120),
        sourceLocation: SourceLocation = #_sourceLocation,
        where condition: @escaping @Sendable (OutboxStatus) -> Bool
    ) async {
        if await waitingAtMost({ await self.waitFor(condition) }, limit: limit) == true { return }
        let last = latest.value.map { "\($0.edits)" } ?? "no status"
        Issue.record("\(waitedFor) never came: the log's last status holds \(last)", sourceLocation: sourceLocation)
    }
}
