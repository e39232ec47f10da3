import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The reference model of one item in many lists: two to four feeds of shared posts on one store
/// (and, in half the sequences, some of them open on a second store on the file too), each over its
/// own server list drawn from one pool of posts with one server value per id; random sequences of
/// every operation, checked after every step.
///
/// Operations: new posts on top of some lists, a post edited on the server (every list sees its new
/// value), posts deleted; refresh, next page (also racing a refresh), prefetch, gap fills from either
/// end and `retry()` in any list of either store; local updates, local inserts of a post other lists
/// hold, local removals and trims; `store.remove(id:of:)`; optimistic updates, inserts and removals
/// whose call lets another list refresh, load a page or update the same post first (or the store
/// remove the post under an update), and then succeeds or fails; queued edits made by kind (an
/// update, an insert, a removal, or two stacked on one post) sent by the outbox of store 0 or, in
/// half the sequences, of either store, answered confirmed, rejected or retryable then resumed while
/// another list writes the post (see `SharedItemsModel+QueuedEdits.swift`); the second store
/// relaunched. One fetch in ten fails.
///
/// After every step: every list's snapshot rows are its file rows, each snapshot's change turns the
/// previous rows into the next (as UIKit reads a batch) and names every item whose content changed,
/// a list whose feed wrote nothing in the step saw no full reload, and no list took a write as a full
/// reload from the file; every list shows, for each of its items, the value of the item's last write
/// in any feed (see ``SharedValues``): a server page's value is the server's, a pending optimistic
/// edit stays on top of a newer copy, its rollback shows that copy, and a committed one stays its
/// feed's own until the item is written again; the file passes `verify` (its search index is the
/// rows'), and search finds a post by a word of its rows (its id or revision, see
/// ``SharedPost/words``), in every feed or one, once, showing a row of a feed searched that holds
/// the word, whatever copies its rows show.
///
/// It runs a quarter of the reference model's sequences (`PAGEDSTORE_MODEL_SEQUENCES`, from its
/// first seed or `PAGEDSTORE_MODEL_FIRST_SEED`) and stops at the first failing one, which it prints;
/// `PAGEDSTORE_MODEL_SEED=S` replays one, and `PAGEDSTORE_MODEL_TRACE` prints each step. Alone,
/// CI's size (125 sequences) takes about 10 s; beside the whole suite on two cores, minutes, hence
/// the reference model's time limit.
@Suite(.limit(minutes: 15)) struct SharedItemsModelTests {
    static var seeds: [UInt64] {
        let seeds = ReferenceModelTests.seeds
        guard ProcessInfo.processInfo.environment["PAGEDSTORE_MODEL_SEED"] == nil else { return seeds }
        return Array(seeds.prefix(max(seeds.count / 4, 1)))
    }

    @Test func everyListShowsTheLastWrittenValueOfEachSharedItem() async throws {
        for seed in Self.seeds {
            var model = try await SharedItemsModel(seed: seed)
            try await model.run()
            // The first failing sequence is the one to replay; the ones after it add only noise.
            if model.failed { break }
        }
    }
}

/// One sequence of the model: the server lists, the open lists and what they must show.
struct SharedItemsModel {
    /// One open list: a feed of a store, and what it emitted.
    struct List {
        /// 0 for the app's store, 1 for the second store on the file.
        let store: Int
        let key: String
        /// The server list it pages.
        let list: Int
        let feed: Feed<SharedPost>
        let recorder: SnapshotRecorder<SharedPost>
        let events: EventRecorder
        /// How many of its snapshots were checked.
        var checked = 0
        /// How many full reloads from the file it was found to take.
        var reloads = 0

        var name: String { "\(key)@\(store)" }
    }

    let seed: UInt64
    var random: SplitMix64
    /// The search check's picks (see ``checkSearch(_:_:)``).
    var searchRandom: SplitMix64
    let test: FeedTestCase
    let server: SharedTimelines
    let policies: [FeedPolicy]
    var stores: [FeedStore]
    /// One connection for the checks' reads of the file, rather than one opened for each.
    let reader: DatabaseQueue
    var lists: [List] = []
    var values = SharedValues()
    /// Whether a check failed: the sequence ends after the step.
    var failed = false
    let trace = TestEnvironment.tracesModels
    let keys: [String]
    /// The outbox's handler of the queued edits (see ``queuedEdit(in:_:before:step:)``).
    let answers = SharedOutboxAnswers()
    /// Whether store 1 has the handler too, so that either store may send an edit.
    let bothStoresSend: Bool

    init(seed: UInt64) async throws {
        self.seed = seed
        var random = SplitMix64(seed: seed)
        searchRandom = SplitMix64(seed: ~seed)
        test = try FeedTestCase()
        let count = Int.random(in: 2...4, using: &random)
        server = SharedTimelines(lists: count, pageSize: Int.random(in: 3...8, using: &random))
        keys = (0..<count).map { "list\($0)" }
        policies = keys.map { _ in
            FeedPolicy(
                refreshOnOpen: .never, gapPolicy: Bool.random(using: &random) ? .replace : .keepGap,
                refreshMode: Bool.random(using: &random)
                    ? .newerThanHead(maxPages: Int.random(in: 1...3, using: &random)) : .firstPage,
                windowSize: 100_000, firstScreenRows: 100_000,
                autoFillGapPages: Int.random(in: 0..<3, using: &random) == 0 ? 1 : 0)
        }
        stores = [try test.store(), try test.store()]
        reader = try DatabaseQueue(path: test.path)
        // The second store opens some of the feeds: another process's lists following the file.
        let seconds = Bool.random(using: &random) ? (0..<count).filter { _ in Bool.random(using: &random) } : []
        // Drawn from a generator of its own, so that the other steps' draws stay as they were.
        var sends = SplitMix64(seed: seed &+ 0x5EED)
        bothStoresSend = Bool.random(using: &sends)
        self.random = random
        publish(Int.random(in: 0...30, using: &self.random))
        for list in 0..<count { lists.append(try await open(list, on: 0)) }
        for list in seconds { lists.append(try await open(list, on: 1)) }
        await answers.register(on: stores[0], as: 0)
        if bothStoresSend { await answers.register(on: stores[1], as: 1) }
    }

    /// Opens the feed of server list `list` on store `store`, recording what it emits.
    func open(_ list: Int, on store: Int) async throws -> List {
        let faults = DelaySchedule(seed: seed &+ UInt64(list * 2 + store))
        let source = server.source(of: list) { faults.shouldFail() }
        let feed = try stores[store].feed(keys[list], source: source, policy: policies[list])
        return List(
            store: store, key: keys[list], list: list, feed: feed, recorder: await SnapshotRecorder(feed),
            events: await EventRecorder(feed))
    }

    var context: String { "seed \(seed) (\(lists.map(\.name)), page \(server.pageSize))" }

    mutating func run() async throws {
        if trace {
            for (key, policy) in zip(keys, policies) { print("\(key): \(policy.gapPolicy), \(policy.refreshMode)") }
            print("store 1 sends too: \(bothStoresSend)")
        }
        for step in 0..<40 {
            let at = Int.random(in: 0..<lists.count, using: &random)
            let list = lists[at]
            let snapshot = await list.feed.snapshot
            let before = try files()
            let operation = Int.random(in: 0..<26, using: &random)
            if trace {
                print("step \(step) op \(operation) in \(list.name)")
                for key in keys { print("  \(key) \(before[key, default: []].map { "\($0.id)=\($0.revision)" })") }
            }
            var effect = Effect(acting: [list.key], writers: [list.key], fromServer: true)
            switch operation {
            case 0, 1, 2: publish(Int.random(in: 1...6, using: &random))
            case 3, 4: server.bump(pick(Int.random(in: 1...3, using: &random), of: serverIDs))
            case 5: server.delete(pick(Int.random(in: 1...2, using: &random), of: serverIDs))
            case 6, 7, 8: await list.feed.refresh()
            case 9, 10: await list.feed.loadNextPage()
            case 11:
                async let refreshed: Void = list.feed.refresh()
                async let paged: Void = list.feed.loadNextPage()
                _ = await (refreshed, paged)
            case 12:
                if let gap = snapshot.gaps.randomElement(using: &random) {
                    await list.feed.loadGap(
                        gap, from: gap.canFillFromBottom && Bool.random(using: &random) ? .bottom : .top)
                }
            case 13:
                guard snapshot.rows.count > 0 else { break }
                await list.feed.rowDidAppear(Int.random(in: 0..<snapshot.rows.count, using: &random))
            case 14: await list.feed.retry()
            case 15, 16:
                effect = try await update(in: list, snapshot, step: step)
            case 17:
                effect = try await insert(in: list, snapshot, before: before, step: step)
            case 18:
                effect = try await removeFromTheStore(before: before)
            case 19:
                effect.writers = []
                if let id = snapshot.ids.randomElement(using: &random) { try await list.feed.remove(id: id) }
            case 20:
                effect.writers = []
                try await list.feed.trim(maxRows: Int.random(in: 3...20, using: &random))
            case 21, 22:
                effect = try await optimisticEdit(in: list, snapshot, before: before, step: step)
            case 23, 24:
                effect = try await queuedEdit(in: list, snapshot, before: before, step: step)
            default:
                effect = try await relaunchTheSecondStore()
            }
            try await check(effect, before: before, "\(context) step \(step) op \(operation) in \(list.name)")
            if failed {
                print("Replay: PAGEDSTORE_MODEL_SEED=\(seed) PAGEDSTORE_MODEL_TRACE=1")
                return
            }
        }
    }

    /// What a step did: which feeds wrote (their changed rows are writes of the items), which may
    /// show a full reload, and whether the writes came from server pages.
    struct Effect {
        var acting: Set<String>
        var writers: Set<String>
        var fromServer: Bool
        /// The item a step wrote locally, which its feed's writes must be exactly.
        var local: SharedPost?
        /// An optimistic edit to check once the writes are taken.
        var edit: OptimisticOutcome?
        /// Queued edits to check once the writes are taken.
        var queued: QueuedOutcome?
    }

    /// The ids every server list holds.
    var serverIDs: [String] { (0..<server.listCount).flatMap { server.ids(of: $0) } }

    /// Up to `count` ids picked from `ids`.
    mutating func pick(_ count: Int, of ids: [String]) -> [String] {
        (0..<count).compactMap { _ in ids.randomElement(using: &random) }
    }

    /// `count` new posts, each on top of one list or more (half of the lists, on average).
    mutating func publish(_ count: Int) {
        let placements = (0..<count).map { _ in
            let lists = Set((0..<server.listCount).filter { _ in Bool.random(using: &random) })
            return lists.isEmpty ? [Int.random(in: 0..<server.listCount, using: &random)] : lists
        }
        server.publish(placements)
    }

    /// The rows of every feed, as a fresh connection reads the file.
    func files() throws -> [String: [SharedPost]] {
        try Dictionary(
            uniqueKeysWithValues: keys.map { ($0, try test.itemsOnDisk(of: SharedPost.self, key: $0, reader: reader)) })
    }
}
