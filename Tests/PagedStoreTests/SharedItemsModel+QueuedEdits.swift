import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The shared items' model's queued edits: a feed enqueues an edit by kind (an update, an insert of
/// an id other feeds hold, a removal), sometimes a second one stacked on the same item while the
/// first's send is held; meanwhile another feed refreshes, loads a page or updates the item (or the
/// server edits it first); the outbox's handler, on store 0 and in some sequences on store 1 too,
/// answers each send confirmed, rejected, or retryable and then confirmed once an outbox resumes.
///
/// Why a step of its own: queued edits are the path an app takes for edits that must outlive the
/// screen, they stack on one item and are sent by whichever store takes the lease, and the
/// closure-made edits the model had before cover none of that. The rules it checks:
/// - a pending update shows in every feed holding the item, over any newer copy (its base), and once
///   settled every holder shows that base with the confirmed edits' changes on it;
/// - an insert, and every edit stacked on it, is its feed's own until the insert settles: the other
///   feeds keep their own copy, and a rejection leaves them as they were; once the insert is
///   confirmed, an update stacked on it goes again on the copy the other feeds hold and shows in
///   every feed, as any pending update;
/// - a removal is its feed's own, and a rejected one puts the item back;
/// - each edit is sent once (twice when the first send was retryable), by one store, and none is
///   lost: every edit ends confirmed, rejected, or (an update on a rejected insert) dropped unsent
///   with it, and no store's outbox lists it afterwards.
extension SharedItemsModel {
    /// The kind the model's queued edits are made with.
    static let queuedKind = "share-revise"

    /// What a step enqueues: one edit, or a second one stacked on the first while it is sent.
    enum QueuedShape: CaseIterable {
        case update, insert, remove, updateOnUpdate, updateOnInsert, removalOnUpdate

        /// Whether its first edit is an update, which every feed holding the item shows.
        var spreads: Bool { self == .update || self == .updateOnUpdate || self == .removalOnUpdate }
        /// Whether its first edit is an insert, the feed's own.
        var inserts: Bool { self == .insert || self == .updateOnInsert }
        /// Whether a second edit is stacked on the first.
        var stacked: Bool { self == .updateOnUpdate || self == .updateOnInsert || self == .removalOnUpdate }
        /// What the pending updates add to the item's revision (a first update adds a million, a
        /// second two), so that the millions of a value name the edits it shows.
        var pendingMillions: Int {
            switch self {
            case .update, .removalOnUpdate: 1_000_000
            case .updateOnUpdate: 3_000_000
            case .updateOnInsert: 2_000_000
            case .insert, .remove: 0
            }
        }
    }

    /// How the step answers one edit's send.
    enum QueuedAnswer: CaseIterable {
        case confirmed, rejected
        /// Retryable (a 503), then sent again by an outbox's ``Outbox/resume()`` and confirmed.
        case retriedThenConfirmed

        var confirms: Bool { self != .rejected }
    }

    /// What another feed (or the server) does while the first edit's send is held.
    enum QueuedMeanwhile: CaseIterable {
        case refresh, nextPage, localUpdate, serverEditThenRefresh, nothing
    }

    /// What the edited feed shows of the item once its edits settled.
    enum QueuedShown {
        /// No row (a confirmed removal, a rejected insert).
        case none
        /// The value every feed holding the item shows.
        case shared(Int)
        /// The feed's own value (a confirmed insert), until the item is written again.
        case own(Int)
        /// The item back (a rejected removal), at its last written value or the feed's own.
        case back
    }

    /// What a queued edit step left, for the checks once the step's writes are taken.
    struct QueuedOutcome {
        let shape: QueuedShape
        let key: String
        let id: String
        /// What every other feed holding the item shows once settled (an update's base with the
        /// confirmed updates on it); nil when the edits were the feed's own.
        let settled: Int?
        /// The other feeds' revisions of the item while the edits were pending: settling an insert's
        /// or a removal's edits leaves them as they were.
        let othersPending: [String: Int]
        /// A copy of the item another feed wrote while an insert or a removal was pending.
        let copyMeanwhile: Int?
        let shown: QueuedShown
    }

    /// A queued edit step in `list` (see the extension's summary).
    mutating func queuedEdit(
        in list: List, _ snapshot: FeedSnapshot<SharedPost>, before files: [String: [SharedPost]], step: Int
    ) async throws -> Effect {
        guard let other = lists.filter({ $0.key != list.key }).randomElement(using: &random) else { return .none }
        let shape = QueuedShape.allCases.randomElement(using: &random) ?? .update
        let plans = (0..<2).map { _ in QueuedAnswer.allCases.randomElement(using: &random) ?? .confirmed }
        let meanwhile = QueuedMeanwhile.allCases.randomElement(using: &random) ?? .nothing
        let feed = list.feed
        let argument = Revision(revision: step)
        let inserted = 40_000 + step
        let id: String
        var keys: [UUID] = []
        if shape.inserts {
            let mine = Set(files[list.key, default: []].map(\.id))
            let elsewhere = Set(files.values.joined().map(\.id)).subtracting(mine).sorted()
            id = elsewhere.randomElement(using: &random) ?? "queued\(step)"
            let row = Int.random(in: 0...snapshot.rows.count, using: &random)
            keys.append(
                try await feed.enqueue(
                    Self.queuedKind, inserting: SharedPost(id: id, revision: inserted), at: row, argument: argument))
        } else {
            guard let item = snapshot.rows.loadedItems.randomElement(using: &random) else { return .none }
            id = item.id
            let key =
                shape == .remove
                ? try await feed.enqueue(Self.queuedKind, removing: id, argument: argument)
                : try await feed.enqueue(Self.queuedKind, id: id, argument: argument) { $0.revision += 1_000_000 }
            guard let key else {
                fail("\(self.context) step \(step): \(id) shown in \(list.name), but its edit was not queued")
                return .none
            }
            keys.append(key)
        }
        let context =
            "\(context) step \(step): queued \(shape) of \(id) in \(list.name), \(plans), \(meanwhile) in \(other.name)"
        if trace { print("  \(context)") }
        defer { answers.releaseAll() }
        // The first send is held: the stacked edit is made while it runs, and waits for it.
        let first = await answers.nextSend()
        if trace { print("  sent by store \(first.store)") }
        expect(first.key == keys[0], "\(context): the outbox sent another edit than the one queued")
        if shape.stacked {
            let second: UUID?
            switch shape {
            case .removalOnUpdate: second = try await feed.enqueue(Self.queuedKind, removing: id, argument: argument)
            default:
                second = try await feed.enqueue(Self.queuedKind, id: id, argument: argument) {
                    $0.revision += 2_000_000
                }
            }
            guard let second else {
                fail("\(context): the stacked edit was not queued")
                return .none
            }
            keys.append(second)
        }
        try await expectQueued(keys, context: "\(context) pending")

        // Another feed writes meanwhile.
        let otherHolds = await other.feed.snapshot.ids.contains(id)
        let local = SharedPost(id: id, revision: 10_000 + step)
        switch meanwhile {
        case .refresh: await other.feed.refresh()
        case .nextPage: await other.feed.loadNextPage()
        case .localUpdate: if otherHolds { _ = try await other.feed.update(local) }
        case .serverEditThenRefresh:
            server.bump([id])
            await other.feed.refresh()
        case .nothing: break
        }
        let fromServer = meanwhile == .refresh || meanwhile == .nextPage || meanwhile == .serverEditThenRefresh
        let localMeanwhile = meanwhile == .localUpdate && otherHolds ? local.revision : nil
        let pending = try await followedFiles(context)

        // While pending: the update everywhere on one base, or the insert or removal the feed's own.
        let row = { (files: [String: [SharedPost]], key: String) in
            files[key, default: []].first { $0.id == id }?.revision
        }
        let others = self.keys.filter { $0 != list.key }
        let earlier = Set(self.keys.compactMap { row(files, $0) })
        var base: Int?
        var copyMeanwhile: Int?
        if shape.spreads {
            let holders = self.keys.filter { !(shape == .removalOnUpdate && $0 == list.key) }
            let shown = Set(holders.compactMap { row(pending, $0) })
            let allowed = earlier.union([server.revision(of: id), localMeanwhile].compactMap { $0 })
            if shape == .removalOnUpdate {
                expect(row(pending, list.key) == nil, "\(context): the removed item still shows in its feed")
            } else {
                expect(row(pending, list.key) != nil, "\(context): the updated item left its feed")
            }
            if shown.count > 1 {
                fail("\(context): the feeds holding it show \(shown.sorted()), not one pending update")
                // The edited feed's value names the base, so that what follows reports no more.
                base = row(pending, list.key).map { $0 - shape.pendingMillions }
            } else if let value = shown.first {
                base = value - shape.pendingMillions
                expect(
                    base.map(allowed.contains) ?? false,
                    "\(context): shows \(value), not its updates on any of \(allowed.sorted())")
            } else {
                base = row(files, list.key)
            }
        } else {
            let mine = row(pending, list.key)
            let expected = shape.inserts ? inserted + shape.pendingMillions : nil
            expect(mine == expected, "\(context): its feed shows \(mine ?? -1), not its own \(expected ?? -1)")
            // The other feeds keep their own copy: only a write of another feed changes it.
            var copies: Set<Int> = []
            for key in others {
                guard let value = row(pending, key), value != row(files, key) else { continue }
                copies.insert(value)
            }
            let allowed = Set([server.revision(of: id), localMeanwhile].compactMap { $0 })
            expect(
                copies.count <= 1 && copies.isSubset(of: allowed),
                "\(context): the other feeds took \(copies.sorted()) while the edit was its feed's own, not \(allowed.sorted())"
            )
            copyMeanwhile = copies.first
        }
        let othersPending = others.reduce(into: [String: Int]()) { $0[$1] = row(pending, $1) }

        // The answers: the first edit, then the stacked one once it is sent (never, when a rejected
        // insert took it along).
        try await answer(keys[0], plans[0], context: "\(context) first")
        var confirmed = [plans[0].confirms]
        // The copy the other feeds hold that a confirmed insert's stacked update joined.
        var joined: Int?
        if keys.count == 2 {
            if shape.inserts && !plans[0].confirms {
                confirmed.append(false)
            } else {
                let next = await answers.nextSend()
                if trace { print("  stacked edit sent by store \(next.store)") }
                expect(next.key == keys[1], "\(context): the outbox sent another edit than the stacked one")
                let firstSettled = try await followedFiles(context)
                joined = checkFirstSettled(
                    shape, confirmed: plans[0].confirms, base: base, inserted: inserted, id: id, list.key,
                    firstSettled, othersPending, context)
                try await answer(keys[1], plans[1], context: "\(context) second")
                confirmed.append(plans[1].confirms)
            }
        }
        if await !stores[0].outbox.expectEmpty("\(context): store 0's outbox") { failed = true }
        for list in lists { await list.feed.waitUntilIdle() }

        // Each edit sent once by one store (twice after a retryable send), none lost.
        for (index, key) in keys.enumerated() {
            let sends = answers.sends(of: key)
            let expected =
                index == 1 && shape.inserts && !plans[0].confirms ? 0 : plans[index] == .retriedThenConfirmed ? 2 : 1
            expect(
                sends.count == expected,
                "\(context): edit \(index) sent \(sends.count) times (by stores \(sends.map(\.store))), not \(expected)"
            )
        }
        let stray = answers.untaken
        expect(stray.isEmpty, "\(context): sends nobody asked for \(stray.map(\.key))")
        for (index, store) in stores.enumerated() {
            let left = await store.outbox.status.edits.map(\.idempotencyKey)
            expect(left.isEmpty, "\(context): store \(index)'s outbox still lists \(left) once every edit settled")
        }
        let stillPending = try await feed.pendingEdits()
        expect(stillPending.isEmpty, "\(context): settled edits still pending \(stillPending)")

        // The updates' millions that stay: the confirmed ones, on the base they showed on last.
        let millions = shape == .updateOnUpdate ? [1_000_000, 2_000_000] : [1_000_000]
        let settled = base.map { base in
            zip(millions, confirmed).reduce(base) { $0 + ($1.1 ? $1.0 : 0) }
        }
        let joinedSettled = joined.map { $0 + (confirmed[1] ? 2_000_000 : 0) }
        let shown: QueuedShown
        switch shape {
        case .update, .updateOnUpdate: shown = settled.map { .shared($0) } ?? .none
        case .removalOnUpdate: shown = confirmed[1] ? .none : settled.map { .shared($0) } ?? .none
        case .insert: shown = confirmed[0] ? .own(inserted) : .none
        case .updateOnInsert:
            shown =
                joinedSettled.map { .shared($0) }
                ?? (confirmed[0] ? .own(inserted + (confirmed[1] ? 2_000_000 : 0)) : .none)
        case .remove: shown = confirmed[0] ? .none : .back
        }
        return Effect(
            acting: [list.key, other.key], writers: fromServer ? [other.key] : [], fromServer: fromServer,
            queued: QueuedOutcome(
                shape: shape, key: list.key, id: id, settled: shape.spreads ? settled : joinedSettled,
                othersPending: othersPending, copyMeanwhile: copyMeanwhile, shown: shown))
    }

    /// Answers the held send of `key` as `plan` says; a retryable send waits for its delay in every
    /// store until an outbox that sends resumes, and is then confirmed.
    mutating func answer(_ key: UUID, _ plan: QueuedAnswer, context: String) async throws {
        switch plan {
        case .confirmed: expect(answers.answer(key, .confirmed), "\(context): no send of \(key) to confirm")
        case .rejected:
            expect(answers.answer(key, .rejected(reason: "HTTP 422")), "\(context): no send of \(key) to reject")
        case .retriedThenConfirmed:
            expect(
                answers.answer(key, .retryable(reason: "HTTP 503", retryAfter: nil)),
                "\(context): no send of \(key) to answer")
            for (index, store) in stores.prefix(bothStoresSend ? stores.count : 1).enumerated() {
                if trace { print("  waiting for store \(index) to show it retrying later") }
                let retrying = await store.outbox.expectStatus(
                    "\(context): store \(index) showing \(key) retrying later"
                ) {
                    $0.edits.first { $0.idempotencyKey == key }?.phase == .retryingLater
                }
                if !retrying { failed = true }
            }
            if trace { print("  every store shows it retrying later") }
            try await expectQueued([key], context: "\(context) retrying")
            let sender = bothStoresSend ? Int.random(in: 0..<stores.count, using: &random) : 0
            await stores[sender].outbox.resume()
            if trace { print("  store \(sender) resumed") }
            let again = await answers.nextSend()
            if trace { print("  sent again") }
            expect(again.key == key, "\(context): store \(sender)'s resume sent another edit")
            expect(answers.answer(key, .confirmed), "\(context): no send of \(key) to confirm")
        }
    }

    /// Every store's outbox lists the edits of `keys`: queued, never lost, whichever store sends.
    mutating func expectQueued(_ keys: [UUID], context: String) async throws {
        for (index, store) in stores.enumerated() {
            let listed = Set(await store.outbox.status.edits.map(\.idempotencyKey))
            expect(listed.isSuperset(of: keys), "\(context): store \(index)'s outbox lists \(listed), not \(keys)")
        }
    }

    /// The file's rows once every list followed them (see ``waitUntilEveryListShows(_:_:)``).
    mutating func followedFiles(_ context: String) async throws -> [String: [SharedPost]] {
        for list in lists { await list.feed.waitUntilIdle() }
        let files = try files()
        await waitUntilEveryListShows(files, context)
        return files
    }

    /// A stack's first edit settled, its second still pending: a second update shows on the first's
    /// value (its base when the first was rejected) in every holder; a removal leaves the update's
    /// settled value in the other feeds; an update on a confirmed insert goes again on the copy the
    /// other feeds hold and shows in every holder, or stays its feed's own when no other feed holds
    /// the item.
    /// - Returns: The other feeds' copy the update on a confirmed insert joined, if it did.
    mutating func checkFirstSettled(
        _ shape: QueuedShape, confirmed: Bool, base: Int?, inserted: Int, id: String, _ key: String,
        _ files: [String: [SharedPost]], _ othersPending: [String: Int], _ context: String
    ) -> Int? {
        let context = "\(context), first \(confirmed ? "confirmed" : "rejected")"
        let rows = keys.reduce(into: [String: Int]()) { rows, key in
            rows[key] = files[key, default: []].first { $0.id == id }?.revision
        }
        switch shape {
        case .updateOnUpdate, .removalOnUpdate:
            guard let base else { return nil }
            let expected = base + (confirmed ? 1_000_000 : 0) + (shape == .updateOnUpdate ? 2_000_000 : 0)
            for (holder, value) in rows where !(shape == .removalOnUpdate && holder == key) {
                expect(value == expected, "\(context): \(holder) shows \(value), not \(expected)")
            }
        case .updateOnInsert:
            guard !othersPending.isEmpty else {
                expect(
                    rows[key] == inserted + 2_000_000,
                    "\(context): its feed shows \(rows[key] ?? -1), not its own update")
                return nil
            }
            let shown = Set(rows.values)
            guard shown.count == 1, let value = shown.first, Set(othersPending.values).contains(value - 2_000_000)
            else {
                fail("\(context): the feeds show \(rows), not the update on one of the copies \(othersPending)")
                return nil
            }
            return value - 2_000_000
        default: break
        }
        return nil
    }

    /// The settled queued edits, once the step's other writes are taken: the other feeds show the
    /// update's settled value, or, under an insert or a removal, their own copy as it was while the
    /// edits were pending; the edited feed shows what ``QueuedShown`` says.
    mutating func checkQueued(_ queued: QueuedOutcome, _ after: [String: [SharedPost]], _ context: String) {
        let context = "\(context): queued \(queued.shape) of \(queued.id) in \(queued.key)"
        let row = { (key: String) in after[key, default: []].first { $0.id == queued.id }?.revision }
        for key in keys where key != queued.key {
            if let settled = queued.settled {
                if let value = row(key) {
                    expect(value == settled, "\(context): \(key) shows \(value), not \(settled)")
                }
            } else {
                expect(
                    row(key) == queued.othersPending[key],
                    "\(context): \(key) shows \(row(key) ?? -1), not its own copy \(queued.othersPending[key] ?? -1)")
            }
        }
        if let settled = queued.settled {
            values.wrote(SharedPost(id: queued.id, revision: settled))
        } else if let copy = queued.copyMeanwhile {
            values.wrote(SharedPost(id: queued.id, revision: copy))
        }
        let mine = row(queued.key)
        switch queued.shown {
        case .none: expect(mine == nil, "\(context): its feed shows \(mine ?? -1), not nothing")
        case .shared(let value): expect(mine == value, "\(context): its feed shows \(mine ?? -1), not \(value)")
        case .own(let value):
            expect(mine == value, "\(context): its feed shows \(mine ?? -1), not its own \(value)")
            values.setOwn(value, of: queued.id, in: queued.key)
        case .back: expect(mine != nil, "\(context): the rejected removal did not put the item back")
        }
    }
}

/// The handler of the shared items' model's queued edits, on one store or both: it records each
/// send by idempotency key and sending store, and holds it until the step answers that key, so
/// that races are ordered by the step, never by time.
final class SharedOutboxAnswers: Sendable {
    /// One send: the edit's key and the store whose handler ran.
    struct Send: Sendable {
        let key: UUID
        let store: Int
    }

    private struct State {
        var sends: [Send] = []
        /// How many of `sends` the step took with ``nextSend()``.
        var taken = 0
        var waitingForSend: CheckedContinuation<Send, Never>?
        /// The held handlers, by key (more than one only if two stores sent one edit at once).
        var held: [UUID: [CheckedContinuation<OutboxOutcome, Never>]] = [:]
    }

    private let state = Locked(State())

    /// Registers the handler on `store` (number `index`), again after its relaunch; only the step's
    /// answers and resumes send an edit again, so a failed send's delay outlasts any sequence.
    func register(on store: FeedStore, as index: Int) async {
        await store.outbox.setRetryDelays(first: .seconds(3_600), maximum: .seconds(3_600))
        await store.outbox.register(SharedItemsModel.queuedKind, as: Revision.self) { [self] edit in
            await withCheckedContinuation { answer in
                let send = Send(key: edit.idempotencyKey, store: index)
                let waiter = state.mutate { state -> CheckedContinuation<Send, Never>? in
                    state.held[send.key, default: []].append(answer)
                    state.sends.append(send)
                    guard let waiter = state.waitingForSend else { return nil }
                    state.waitingForSend = nil
                    state.taken += 1
                    return waiter
                }
                waiter?.resume(returning: send)
            }
        }
    }

    /// The next send the step has not taken yet, waiting for it.
    func nextSend() async -> Send {
        await withCheckedContinuation { continuation in
            let ready = state.mutate { state -> Send? in
                guard state.taken < state.sends.count else {
                    state.waitingForSend = continuation
                    return nil
                }
                state.taken += 1
                return state.sends[state.taken - 1]
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Answers the oldest held send of `key`; whether one was held.
    func answer(_ key: UUID, _ outcome: OutboxOutcome) -> Bool {
        let held = state.mutate { state -> CheckedContinuation<OutboxOutcome, Never>? in
            guard var sends = state.held[key], !sends.isEmpty else { return nil }
            let first = sends.removeFirst()
            state.held[key] = sends.isEmpty ? nil : sends
            return first
        }
        held?.resume(returning: outcome)
        return held != nil
    }

    /// The sends of `key`.
    func sends(of key: UUID) -> [Send] { state.value.sends.filter { $0.key == key } }

    /// The sends the step did not take: an edit sent twice at once, or one sent unasked.
    var untaken: [Send] { state.mutate { Array($0.sends.dropFirst($0.taken)) } }

    /// Lets every held send go as retryable, so that no handler waits past its step (after a
    /// failed check); the edits' delay outlasts the sequence.
    func releaseAll() {
        let held = state.mutate { state in
            defer { state.held = [:] }
            return state.held.values.flatMap { $0 }
        }
        for send in held { send.resume(returning: .retryable(reason: "released", retryAfter: nil)) }
    }
}
