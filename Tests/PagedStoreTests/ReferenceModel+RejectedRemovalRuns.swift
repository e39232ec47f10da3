import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The reference model's run of queued removals: the user removes the rows on top, up to a page of
/// them, and the server rejects every one after a refresh landed while the first send was held.
/// The refreshed page lists the items again and the pending removals hide them at once; put back,
/// each must reach its place in the server's order (the scroll at the end of the sequence checks it).
extension ReferenceModelTests {
    static func rejectedRemovalsOfTheTopRows(
        _ feed: Feed<Post>, _ store: FeedStore, _ snapshot: FeedSnapshot<Post>, answers: QueuedEditAnswers,
        server: TimelineModel, step: String, using random: inout SplitMix64
    ) async throws -> QueuedStep {
        let ids = Array(snapshot.ids.prefix(Int.random(in: 2...server.pageSize, using: &random)))
        var keys: [UUID] = []
        for id in ids {
            if let key = try await feed.enqueue(queuedKind, removing: id, argument: Revision(revision: 1_000)) {
                keys.append(key)
            }
        }
        guard !keys.isEmpty else { return QueuedStep() }
        let context = "\(step) \(keys.count) removals on top, rejected"
        if TestEnvironment.tracesModels { print("  removals on top \(ids)") }
        let first = await answers.nextCall()  // held while the refresh lands
        #expect(first == keys.first, "\(context): the outbox sent another edit first")
        await feed.refresh()
        let hidden = Set(ids).intersection(await feed.snapshot.ids)
        #expect(hidden.isEmpty, "\(context): the refresh showed \(hidden), whose removals wait")
        answers.answer(.rejected(reason: "HTTP 403"))
        for _ in keys.dropFirst() {
            _ = await answers.nextCall()
            answers.answer(.rejected(reason: "HTTP 403"))
        }
        await store.outbox.expectEmpty(context)
        await feed.waitUntilIdle()
        #expect(try await feed.pendingEdits().isEmpty, "\(context): a rejected removal is still pending")
        return QueuedStep()
    }
}
