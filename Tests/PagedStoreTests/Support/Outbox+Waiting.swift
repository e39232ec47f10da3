import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

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

    /// ``waitFor(_:)`` for at most `limit`. When no status meets `condition` in time, records an
    /// issue naming `waitedFor` and the edits the outbox holds, and returns false: a hang fails the
    /// step that waited (a model names its seed and step in `waitedFor`), not the suite's time limit.
    @discardableResult
    func expectStatus(
        _ waitedFor: String, within limit: Duration = .seconds(120),
        sourceLocation: SourceLocation = #_sourceLocation,
        where condition: @escaping @Sendable (OutboxStatus) -> Bool
    ) async -> Bool {
        if await waitingAtMost({ await self.waitFor(condition) != nil }, limit: limit) == true { return true }
        Issue.record("\(waitedFor) never came: the outbox holds \(status.edits)", sourceLocation: sourceLocation)
        return false
    }

    /// ``waitUntilEmpty()`` for at most `limit`, failing as ``expectStatus(_:within:sourceLocation:where:)``.
    @discardableResult
    func expectEmpty(
        _ context: String, within limit: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Bool {
        await expectStatus(
            "\(context): an empty outbox", within: limit, sourceLocation: sourceLocation, where: { $0.count == 0 })
    }

    /// Confirms the queued inserts ("fave") at once and holds the first send of the updates
    /// ("revise") until the returned gate is released, then answers `outcome`; returns once that
    /// send is held: an insert confirmed while the update stacked on it is in flight.
    nonisolated func confirmingTheInsertHoldingTheUpdate(answering outcome: OutboxOutcome) async -> FetchGate {
        let gate = FetchGate()
        gate.arm()
        await register("fave", as: Revision.self) { _ in .confirmed }
        await register("revise", as: Revision.self) { _ in
            await gate.pass()
            return outcome
        }
        _ = await gate.arrival()
        return gate
    }
}

/// The argument of the tests' queued edits.
struct Revision: Codable, Sendable, Equatable {
    var revision: Int
}

extension FeedTestCase {
    /// Queues a "revise" edit of each of `ids` (to `revision`) on the refreshed feed "home" of
    /// `source` in a store that then closes, as an app killed offline leaves it.
    /// - Returns: The edits' idempotency keys, in order.
    @discardableResult
    func queueRevisionsBeforeARelaunch(
        _ ids: [String], revision: Int = 9, source: ScriptedSource<Post>
    ) async throws -> [UUID] {
        let store = try self.store()
        let feed = try self.feed(source, store: store)
        await feed.refresh()
        var keys: [UUID] = []
        for id in ids {
            keys.append(
                try #require(
                    try await feed.enqueue("revise", id: id, argument: Revision(revision: revision)) {
                        $0.revision = revision
                    }))
        }
        store.close()
        return keys
    }
}

extension FeedTestCase {
    /// Sends every queued "revise" and "hide" edit of the file from a second store, answering
    /// `outcome`, and returns the keys sent, in order.
    func sendAllQueued(answering outcome: OutboxOutcome = .confirmed) async throws -> [UUID] {
        let sent = Locked<[UUID]>([])
        let sender = try store()
        for kind in ["revise", "hide"] {
            await sender.outbox.register(kind, as: Revision.self) { edit in
                sent.append(edit.idempotencyKey)
                return outcome
            }
        }
        await sender.outbox.waitUntilEmpty()
        // Closed, so that its handler never answers an edit queued after this call returns: a store
        // left to go away in its own time can still follow the file and send one.
        sender.close()
        return sent.value
    }
}
