import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The reference model's queued edits: an update, insert or removal made by kind, whose send the
/// step holds while a refresh, a next page or new server items land, then answers confirmed,
/// rejected, retryable then confirmed (on resume), or retryable and left for a relaunch to send again.
extension ReferenceModelTests {
    /// The kind the model's queued edits are made with.
    static let queuedKind = "revise"

    /// How the step answers its queued edit's sends.
    enum QueuedPlan: CaseIterable {
        case confirmed
        case rejected
        /// Retryable, then confirmed when connectivity is back (``Outbox/resume()``).
        case retriedThenConfirmed
        /// Retryable (offline), then sent again by the relaunch and confirmed.
        case replayedThenConfirmed
        /// Retryable (offline), then sent again by the relaunch and rejected.
        case replayedThenRejected
    }

    /// What a queued edit step left: what it committed, and the edit still pending for a relaunch.
    struct QueuedStep {
        var committed: Committed?
        var replay: QueuedReplay?
    }

    /// What takes the rows of a queued edit at a relaunch: an update of the app whose model no longer
    /// reads them. The edit must still be sent, once more, and settle.
    enum RowsLeaving {
        /// A new cache version clears the feed.
        case newCacheVersion
        /// The edited item's row no longer decodes.
        case undecodable(String)

        /// One in three relaunches of a pending edit: a new cache version, or for an update, its row
        /// undecodable as often.
        static func random(for check: PendingCheck, using random: inout SplitMix64) -> RowsLeaving? {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return .newCacheVersion
            case 1:
                guard case .update(let id) = check else { return .newCacheVersion }
                return .undecodable(id)
            default: return nil
            }
        }
    }

    /// A queued edit left pending (its last send retryable) for the relaunch to send again.
    struct QueuedReplay {
        let check: PendingCheck
        let key: UUID
        /// The revision an update gave its item.
        let edited: Int?
        let confirms: Bool
        /// Whether the relaunch took the edit's row (``RowsLeaving``): it is sent all the same, and
        /// shows on no row.
        var rowLeft = false

        /// Resumes the relaunched store (its delay outlived the relaunch), waits for the send, checks
        /// that the relaunched feed still shows the edit, answers it and waits until it settled.
        func answer(
            in feed: Feed<Post>, _ store: FeedStore, _ answers: QueuedEditAnswers, _ test: FeedTestCase,
            _ context: String
        ) async throws {
            // Still queued, whatever the relaunch did to its row: the user's intent is never lost.
            let queued = await store.outbox.status.edits
            try #require(queued.map(\.idempotencyKey) == [key], "\(context): the relaunch lost the queued edit")
            // The failed send's delay outlives the relaunch: connectivity back sends it at once.
            #expect(queued.first?.phase != .sending, "\(context): sent before its delay")
            await store.outbox.resume()
            let sent = await answers.nextCall()
            #expect(sent == key, "\(context): the relaunch sent another edit than the pending one")
            if !rowLeft { try await check.holds(in: feed, test, context) }
            answers.answer(confirms ? .confirmed : .rejected(reason: "HTTP 422"))
            try await ReferenceModelTests.settled(
                feed, store, key: key, sends: 2, confirmed: confirms, check: check, edited: edited,
                answers: answers, test: test, context)
        }
    }

    /// A queued update, insert or removal (see ``QueuedPlan``).
    /// - Parameter badge: Another store's outbox states, which must show the edit while it is sent.
    static func queuedEdit(
        _ feed: Feed<Post>, _ store: FeedStore, _ snapshot: FeedSnapshot<Post>, answers: QueuedEditAnswers,
        badge: OutboxStatusLog, server: TimelineModel, test: FeedTestCase, step: String,
        using random: inout SplitMix64
    ) async throws -> QueuedStep {
        let plan = QueuedPlan.allCases[Int.random(in: 0..<QueuedPlan.allCases.count, using: &random)]
        let meanwhile = Int.random(in: 0..<4, using: &random)
        let publish = Int.random(in: 1...4, using: &random)
        let argument = Revision(revision: 1_000)
        let id = snapshot.ids.randomElement(using: &random)
        let check: PendingCheck
        let committed: Committed?
        let key: UUID?
        var edited: Int?
        var nearTheTop = false
        switch Int.random(in: 0..<5, using: &random) {
        case 4:
            return try await rejectedRemovalRun(
                feed, store, snapshot, answers: answers, server: server, step: step, using: &random)
        case 3:
            return try await stackedUpdates(
                feed, store, snapshot, answers: answers, server: server, step: step, using: &random)
        case 0:
            guard let id else { return QueuedStep() }
            check = .update(id)
            committed = nil
            edited = snapshot.rows.loadedItems.first { $0.id == id }.map { $0.revision + 1_000 }
            key = try await feed.enqueue(queuedKind, id: id, argument: argument) { $0.revision += 1_000 }
        case 1:
            let row = Int.random(in: 0...snapshot.rows.count, using: &random)
            check = .insert(step)
            committed = .insert(step)
            key = try await feed.enqueue(
                queuedKind, inserting: Post(id: step, section: server.sectioned ? "local" : nil), at: row,
                argument: argument)
        default:
            // Half the removals take the second row, where a page that fills a gap above the top
            // lists the rows around it (see ``provedDeletedBeforeItIsSent(_:on:server:)``).
            let second = Bool.random(using: &random) ? snapshot.ids.dropFirst().first : nil
            guard let id = second ?? id else { return QueuedStep() }
            check = .remove(id)
            committed = .remove(id)
            nearTheTop = second != nil
            key = try await feed.enqueue(queuedKind, removing: id, argument: argument)
        }
        guard let key else { return QueuedStep() }
        let context = "\(step) queued \(plan) \(meanwhile)"
        if TestEnvironment.tracesModels { print("  queued \(check) \(plan) meanwhile \(meanwhile)") }
        // The send is held: whatever lands meanwhile, the feed and the file show the edit.
        let sent = await answers.nextCall()
        #expect(sent == key, "\(context): the outbox sent another edit")
        await badge.expectStatus("\(context): the widget's badge showing the edit") {
            $0.edits.contains { $0.idempotencyKey == key }
        }
        await land(meanwhile, on: feed, server: server, publishing: publish, context)
        try await check.holds(in: feed, test, context)
        switch plan {
        case .confirmed, .rejected:
            answers.answer(plan == .confirmed ? .confirmed : .rejected(reason: "HTTP 403"))
            try await settled(
                feed, store, key: key, sends: 1, confirmed: plan == .confirmed, check: check, edited: edited,
                answers: answers, test: test, context)
            return QueuedStep(committed: plan == .confirmed ? committed : nil)
        case .retriedThenConfirmed:
            answers.answer(.retryable(reason: "HTTP 503", retryAfter: nil))
            await store.outbox.expectStatus("\(context): the edit retrying later") {
                $0.edits.first?.phase == .retryingLater
            }
            try await check.holds(in: feed, test, "\(context) retrying")
            await store.outbox.resume()
            #expect(await answers.nextCall() == key, "\(context): resume sent another edit")
            answers.answer(.confirmed)
            try await settled(
                feed, store, key: key, sends: 2, confirmed: true, check: check, edited: edited, answers: answers,
                test: test, context)
            return QueuedStep(committed: committed)
        case .replayedThenConfirmed, .replayedThenRejected:
            answers.answer(.retryable(reason: "offline", retryAfter: nil))
            await store.outbox.expectStatus("\(context): the edit retrying later") {
                $0.edits.first?.phase == .retryingLater
            }
            if case .remove(let id) = check, nearTheTop {
                await provedDeletedBeforeItIsSent(id, on: feed, server: server)
            }
            let confirms = plan == .replayedThenConfirmed
            return QueuedStep(
                committed: confirms ? committed : nil,
                replay: QueuedReplay(check: check, key: key, edited: edited, confirms: confirms))
        }
    }

    /// The server deletes the item of a queued removal that waits, and publishes more than a page:
    /// a refresh leaves a gap above the old rows (when the policy keeps gaps), and the gap's fill
    /// lists the rows around the item and proves it deleted. The user's removal, never sent, must
    /// still go at the relaunch.
    static func provedDeletedBeforeItIsSent(_ id: String, on feed: Feed<Post>, server: TimelineModel) async {
        server.delete([id])
        server.publish(server.pageSize + 1)
        await feed.refresh()
        if let gap = await feed.snapshot.gaps.first { await feed.loadGap(gap) }
    }

    /// Waits until the queued edit with `key` settled, and checks what it left: sent `sends` times
    /// under its one key, no longer pending, and a rejected edit rolled back (an update's item no
    /// longer at its `edited` revision).
    static func settled(
        _ feed: Feed<Post>, _ store: FeedStore, key: UUID, sends: Int, confirmed: Bool, check: PendingCheck,
        edited: Int?, answers: QueuedEditAnswers, test: FeedTestCase, _ context: String
    ) async throws {
        await store.outbox.expectEmpty(context)
        await feed.waitUntilIdle()
        #expect(
            answers.server.sendsByKey[key] == sends, "\(context): sent \(answers.server.sendsByKey[key] ?? 0) times")
        #expect(try await feed.pendingEdits().isEmpty, "\(context): a settled edit is still pending")
        guard !confirmed else { return }
        let shown = await feed.snapshot.rows.loadedItems
        let onDisk = try test.postsOnDisk()
        for (posts, place) in [(shown, "the feed"), (onDisk, "the file")] {
            switch check {
            case .update(let id):
                // An earlier confirmed edit may have left 1,000 or more: the rejected one's value is gone.
                #expect(
                    posts.first { $0.id == id }?.revision != edited,
                    "\(context): \(place) still shows the rejected update of \(id)")
            case .insert(let id):
                #expect(!posts.contains { $0.id == id }, "\(context): \(place) still shows the rejected insert \(id)")
            case .remove:
                // Back between the rows it had around it, unless a trim dropped them; the end of the
                // sequence checks it against the server.
                break
            }
        }
    }
}

/// The handler of the model's queued edits: each send is recorded by its idempotency key and held
/// until the step answers it.
final class QueuedEditAnswers: Sendable {
    /// Every send, by key: a key is applied once however often it is sent.
    let server = MutationServer()
    private let calls: AsyncStream<UUID>
    private let callsContinuation: AsyncStream<UUID>.Continuation
    private let answers: AsyncStream<OutboxOutcome>
    private let answersContinuation: AsyncStream<OutboxOutcome>.Continuation

    init() {
        (calls, callsContinuation) = AsyncStream.makeStream(of: UUID.self)
        (answers, answersContinuation) = AsyncStream.makeStream(of: OutboxOutcome.self)
    }

    /// Registers the handler on a store (again after each relaunch); only the step's answers send
    /// an edit again, so a failed send's backoff is longer than any sequence.
    func register(on store: FeedStore) async {
        await store.outbox.setRetryDelays(first: .seconds(3_600), maximum: .seconds(3_600))
        await store.outbox.register(ReferenceModelTests.queuedKind, as: Revision.self) { [self] edit in
            server.receive("\(edit.itemID)=\(edit.argument.revision)", key: edit.idempotencyKey)
            callsContinuation.yield(edit.idempotencyKey)
            // The model has one queued edit at a time: its sends take the answers in order.
            for await answer in answers { return answer }
            return .retryable(reason: "no answer", retryAfter: nil)
        }
    }

    /// Waits for the next send; its key.
    func nextCall() async -> UUID? {
        for await key in calls { return key }
        return nil
    }

    /// Answers the send that waits (or the next one).
    func answer(_ outcome: OutboxOutcome) {
        answersContinuation.yield(outcome)
    }
}
