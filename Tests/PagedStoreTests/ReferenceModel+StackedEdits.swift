import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The reference model's stacked edits: two queued updates of one item, the second made while the
/// first's send is held, each confirmed or rejected.
extension ReferenceModelTests {
    /// Queues two updates of one item (+1,000,000 then +2,000,000 to its revision, so that the millions
    /// name the edits it shows), lets pages land while the first is sent, and answers each: the
    /// second is sent only after the first settled, each once; the item shows every pending edit on
    /// top of the server's value, a confirmed one until a server copy replaces it, and no rejected
    /// one (or is not in the feed: deleted by the server, or in a list replaced meanwhile).
    static func stackedUpdates(
        _ feed: Feed<Post>, _ store: FeedStore, _ snapshot: FeedSnapshot<Post>, answers: QueuedEditAnswers,
        server: TimelineModel, step: String, using random: inout SplitMix64
    ) async throws -> QueuedStep {
        let firstConfirms = Bool.random(using: &random)
        let secondConfirms = Bool.random(using: &random)
        let meanwhile = Int.random(in: 0..<4, using: &random)
        let publish = Int.random(in: 1...4, using: &random)
        guard let id = snapshot.ids.randomElement(using: &random),
            let first = try await feed.enqueue(
                queuedKind, id: id, argument: Revision(revision: 1_000_000), { $0.revision += 1_000_000 })
        else { return QueuedStep() }
        let context = "\(step) stacked on \(id) \(firstConfirms) \(secondConfirms) \(meanwhile)"
        // Edits confirmed by earlier steps show until a server copy replaces them (a local row never
        // gets one): the millions this stack adds go on top of those, or of the server's value.
        let earlier = (snapshot.rows.loadedItems.first { $0.id == id }?.revision ?? 0) / 1_000_000
        #expect(await answers.nextCall() == first, "\(context): the outbox sent another edit")
        let second = try await feed.enqueue(queuedKind, id: id, argument: Revision(revision: 2_000_000)) {
            $0.revision += 2_000_000
        }
        #expect(second != nil, "\(context): the second edit was not queued")
        await land(meanwhile, on: feed, server: server, publishing: publish, context)
        try await expectEdits(shown: [3], over: earlier, of: id, in: feed, "\(context) both pending")

        answers.answer(firstConfirms ? .confirmed : .rejected(reason: "HTTP 403"))
        #expect(await answers.nextCall() == second, "\(context): the second edit was not sent after the first")
        // A confirmed edit shows until the next server copy of the item (a prefetch may bring one).
        try await expectEdits(
            shown: firstConfirms ? [2, 3] : [2], over: earlier, of: id, in: feed, "\(context) first settled")

        answers.answer(secondConfirms ? .confirmed : .rejected(reason: "HTTP 403"))
        await store.outbox.expectEmpty(context)
        await feed.waitUntilIdle()
        let confirmed = (firstConfirms ? 1 : 0) | (secondConfirms ? 2 : 0)
        let shown = Set((0...3).filter { $0 & ~confirmed == 0 })
        try await expectEdits(shown: shown, over: earlier, of: id, in: feed, "\(context) both settled")
        for key in [first, second].compactMap({ $0 }) {
            #expect(
                answers.server.sendsByKey[key] == 1, "\(context): sent \(answers.server.sendsByKey[key] ?? 0) times")
        }
        #expect(try await feed.pendingEdits().isEmpty, "\(context): a settled edit is still pending")
        return QueuedStep()
    }

    /// Checks that the item shows the edits `millions` names on top of the server's value or of
    /// `earlier` millions that earlier confirmed edits left (its revision's millions), or is not in
    /// the feed.
    private static func expectEdits(
        shown millions: Set<Int>, over earlier: Int, of id: String, in feed: Feed<Post>, _ context: String
    ) async throws {
        guard let item = await feed.snapshot.rows.loadedItems.first(where: { $0.id == id }) else { return }
        let allowed = millions.union(millions.map { $0 + earlier })
        #expect(allowed.contains(item.revision / 1_000_000), "\(context): \(id) shows revision \(item.revision)")
    }
}
