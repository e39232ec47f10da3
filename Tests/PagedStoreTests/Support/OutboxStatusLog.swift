import PagedStore
import TestSupport

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

    /// Waits until the last status sent meets `condition` (one waiter at a time).
    func waitFor(_ condition: (OutboxStatus) -> Bool) async {
        if let status = latest.value, condition(status) { return }
        for await _ in arrivals {
            if let status = latest.value, condition(status) { return }
        }
    }
}
