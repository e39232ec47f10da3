import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The reference model's runs of queued removals: the user removes the rows on top or at the bottom,
/// up to a page of them, and the server rejects every one after a refresh or a next page landed
/// while the sends were held. A refreshed page lists the items on top again, a next page may list
/// the bottom ones (a page-numbered list shifts), and the pending removals hide them at once. Each
/// send is rejected at once or answered "retry later" and rejected when it goes again, so that the
/// items come back in an order other than the queue's; put back, each must reach its place in the
/// server's order (the scroll at the end of the sequence checks it). In lists ordered by activity,
/// the server sometimes bumps the items right around the run while the sends are held, so that the
/// pages move the rows the removals name.
extension ReferenceModelTests {
    static func rejectedRemovalRun(
        _ feed: Feed<Post>, _ store: FeedStore, _ snapshot: FeedSnapshot<Post>, answers: QueuedEditAnswers,
        server: TimelineModel, step: String, using random: inout SplitMix64
    ) async throws -> QueuedStep {
        let count = Int.random(in: 2...server.pageSize, using: &random)
        let atTheBottom = Bool.random(using: &random)
        let alsoTheOtherEnd = Bool.random(using: &random)
        let ids = atTheBottom ? Array(snapshot.ids.suffix(count)) : Array(snapshot.ids.prefix(count))
        var keys: [UUID] = []
        for id in ids {
            if let key = try await feed.enqueue(queuedKind, removing: id, argument: Revision(revision: 1_000)) {
                keys.append(key)
            }
        }
        guard !keys.isEmpty else { return QueuedStep() }
        // Each send is answered in the order it was made: rejected now, or retried later.
        let retriedLater = keys.map { _ in Int.random(in: 0..<3, using: &random) == 0 }
        let context =
            "\(step) \(keys.count) removals \(atTheBottom ? "at the bottom" : "on top"), rejected"
            + " (\(retriedLater.filter { $0 }.count) after a retry)"
        if TestEnvironment.tracesModels {
            print("  removals \(atTheBottom ? "at the bottom" : "on top") \(ids), retried later \(retriedLater)")
        }
        let first = await answers.nextCall()  // held while the pages land
        let policy = feed.policy
        if policy.itemOrder == .byActivity, Bool.random(using: &random) {
            let bumped = server.bumpNeighbours(of: ids, using: &random)
            if TestEnvironment.tracesModels { print("  bumped the run's neighbours \(bumped)") }
        }
        #expect(first == keys.first, "\(context): the outbox sent another edit first")
        if atTheBottom || alsoTheOtherEnd { await feed.loadNextPage() }
        if !atTheBottom || alsoTheOtherEnd { await feed.refresh() }
        let hidden = Set(ids).intersection(await feed.snapshot.ids)
        #expect(hidden.isEmpty, "\(context): the pages showed \(hidden), whose removals wait")
        for (index, retried) in retriedLater.enumerated() {
            if index > 0 { _ = await answers.nextCall() }
            answers.answer(retried ? .retryable(reason: "HTTP 503", retryAfter: nil) : .rejected(reason: "HTTP 403"))
        }
        let retries = retriedLater.filter { $0 }.count
        if retries > 0 {
            await store.outbox.expectStatus("\(context): the retried edits waiting") {
                $0.edits.count == retries && $0.edits.allSatisfy { $0.phase == .retryingLater }
            }
            await store.outbox.resume()
            for _ in 0..<retries {
                _ = await answers.nextCall()
                answers.answer(.rejected(reason: "HTTP 403"))
            }
        }
        await store.outbox.expectEmpty(context)
        await feed.waitUntilIdle()
        #expect(try await feed.pendingEdits().isEmpty, "\(context): a rejected removal is still pending")
        return QueuedStep()
    }
}
