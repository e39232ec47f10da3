import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Random operation sequences against a server whose list shifts between requests, with responses
/// delayed so that they complete out of order. After every snapshot the change must apply, no id may
/// appear twice, and what the feed shows must equal what a fresh store reads from the file.
///
/// `PAGEDSTORE_PROPERTY_SEQUENCES=N` runs N sequences (default 60); `PAGEDSTORE_PROPERTY_SEED=S` replays one.
@Suite(.limit(minutes: 15)) struct FeedPropertyTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["PAGEDSTORE_PROPERTY_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["PAGEDSTORE_PROPERTY_SEQUENCES"].flatMap(Int.init) ?? 60
        return (0..<UInt64(count)).map { 0xFEED_0000 + $0 }
    }

    @Test func everyChangeAppliesAndTheFeedMatchesTheDisk() async throws {
        for seed in Self.seeds {
            try await Self.run(seed: seed)
        }
    }

    static func run(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let test = try FeedTestCase()
        let serial = Locked(0)
        let server = ModelServer(
            (0..<Int.random(in: 0...40, using: &random)).map { _ in Post(id: "s\(serial.increment())") },
            pageSize: Int.random(in: 3...10, using: &random))
        let delays = DelaySchedule(seed: random.next())
        let source = ScriptedSource<Post> { request in
            let page = server.page(for: request)  // the list as it is when the request arrives
            try await Task.sleep(for: .microseconds(delays.next()))
            if delays.shouldFail() { throw URLError(.timedOut) }
            return page
        }
        let gapPolicy: FeedPolicy.GapPolicy = Bool.random(using: &random) ? .replace : .keepGap
        // Sometimes a row limit, so refreshes also trim pages from the bottom.
        let maxRows = Bool.random(using: &random) ? nil : Int.random(in: 12...60, using: &random)
        let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: gapPolicy, windowSize: 100_000, firstScreenRows: 100_000,
            maxRows: maxRows)
        var feed = try test.feed(source, policy: policy)
        var recorder = await SnapshotRecorder(feed)
        var checked = 0

        for step in 0..<30 {
            let context = "seed \(seed) step \(step)"
            let current = feed  // a constant for the concurrent calls below
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1:
                server.items =
                    (0..<Int.random(in: 1...12, using: &random)).map { _ in Post(id: "s\(serial.increment())") }
                    + server.items
            case 2:
                var items = server.items
                if !items.isEmpty { items.remove(at: Int.random(in: 0..<min(items.count, 15), using: &random)) }
                if items.count > 1, Bool.random(using: &random) {
                    items.swapAt(0, Int.random(in: 1..<min(items.count, 8), using: &random))
                }
                if !items.isEmpty { items[Int.random(in: 0..<items.count, using: &random)].revision += 1 }
                server.items = items
            case 3, 4:
                async let a: Void = current.refresh()
                async let b: Void = current.loadNextPage()
                _ = await (a, b)
            case 5:
                async let a: Void = current.refresh()
                async let b: Void = current.refresh()
                _ = await (a, b)
            case 6:
                async let a: Void = current.loadNextPage()
                async let b: Void = current.loadNextPage()
                _ = await (a, b)
            case 7:
                let ids = await feed.snapshot.ids
                if let id = ids.randomElement(using: &random) {
                    if Bool.random(using: &random) {
                        try await feed.remove(id: id)
                    } else {
                        try await feed.update(Post(id: id, revision: 100 + step))
                    }
                } else {
                    try await feed.insert(Post(id: "local\(serial.increment())"), at: 0)
                }
            case 8:
                let count = await feed.snapshot.rows.count
                if count > 0 { await feed.rowDidAppear(Int.random(in: 0..<count, using: &random)) }
            default:
                checked += try await verify(recorder, feed, test, context)
                feed = try test.feed(source, policy: policy)  // relaunch
                recorder = await SnapshotRecorder(feed)
            }
        }
        checked += try await verify(recorder, feed, test, "seed \(seed) end")
        #expect(checked > 0)
    }

    /// Checks every recorded snapshot pair and the final state against the disk.
    /// - Returns: How many changes were checked.
    static func verify(
        _ recorder: SnapshotRecorder<Post>, _ feed: Feed<Post>, _ test: FeedTestCase, _ context: String
    )
        async throws -> Int
    {
        await feed.waitUntilIdle()
        let snapshots = await recorder.snapshots(settlingOn: feed)
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) {
            let applied = try BatchUpdate.apply(next.change, to: previous.ids, new: next.ids)
            #expect(applied == next.ids, "\(context): the change does not turn the previous rows into the new")
            #expect(Set(next.ids).count == next.ids.count, "\(context): an id appears twice")
        }
        let shown = await feed.snapshot.ids
        #expect(try test.idsOnDisk() == shown, "\(context): the feed differs from the file")
        return max(snapshots.count - 1, 0)
    }
}

/// Delays and failures drawn from a seed, shared by concurrent fetches.
final class DelaySchedule: @unchecked Sendable {
    private let lock = NSLock()
    private var random: SplitMix64

    init(seed: UInt64) { random = SplitMix64(seed: seed) }

    func next() -> Int { lock.withLock { Int.random(in: 0...3000, using: &random) } }
    func shouldFail() -> Bool { lock.withLock { Int.random(in: 0..<10, using: &random) == 0 } }
}
