import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Every operation at once on one feed, with slow, failing and reordered responses, and retry()
/// racing refresh(): every change applies, nothing is loading with nothing in flight, the feed
/// equals the file, and scrolling to the end reaches every server item.
@Suite(.limit(minutes: 3)) struct ConcurrentOperationsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// Every operation at once on one feed, with slow, failing and reordered responses: after
    /// each burst every change applies, nothing is loading with nothing in flight, disk == memory,
    /// and at the end scrolling reaches every server item.
    @Test(arguments: 0..<10) func concurrentBurstsOfEveryOperationKeepEveryInvariant(seed: Int) async throws {
        let sectioned = seed % 3 != 0
        let server = ModelServer(
            (0..<50).map { Post(id: "p\($0)", section: sectioned ? "k\($0 / 4 % 3)" : nil) }, pageSize: 6)
        let failing = Locked(true)
        let chaos = ScriptedSource<Post> { request in
            let page = server.page(for: request)
            try await Task.sleep(for: .microseconds(Int.random(in: 0...1500)))
            if failing.value, Int.random(in: 0..<5) == 0 { throw URLError(.timedOut) }
            return page
        }
        let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 100_000, firstScreenRows: 100_000,
            maxRows: seed % 2 == 0 ? 25 : nil)
        let feed = try test.feed(chaos, policy: policy)
        let recorder = await SnapshotRecorder(feed)
        let removed = Locked(Set<String>())
        let serial = Locked(0)
        var random = SplitMix64(seed: UInt64(seed))
        await feed.refresh()
        for burst in 0..<8 {
            let ops = (0..<5).map { _ in Int.random(in: 0..<10, using: &random) }
            let pick = Int.random(in: 0..<1000, using: &random)
            await withTaskGroup(of: Void.self) { group in
                for op in ops {
                    group.addTask {
                        let snapshot = await feed.snapshot
                        switch op {
                        case 0:
                            let n = serial.increment()
                            server.items =
                                (0..<(1 + pick % 9)).map {
                                    Post(id: "s\(n)-\($0)", section: sectioned ? "k\(($0 + n) % 3)" : nil)
                                } + server.items
                        case 1: await feed.refresh()
                        case 2: await feed.loadNextPage()
                        case 3: if snapshot.rows.count > 0 { await feed.rowDidAppear(snapshot.rows.count - 1) }
                        case 4: if let gap = snapshot.gaps.last { await feed.loadGap(gap) }
                        case 5:
                            let row = snapshot.gaps.first.map { $0.afterRow + 1 } ?? pick % (snapshot.rows.count + 1)
                            try? await feed.insert(
                                Post(id: "l\(serial.increment())", section: sectioned ? "k\(pick % 4)" : nil), at: row)
                        case 6:
                            let above = snapshot.gaps.first.flatMap { snapshot.rows.id(at: $0.afterRow) }
                            if let id = above ?? snapshot.rows.id(at: pick % max(snapshot.rows.count, 1)) {
                                removed.insert(id)
                                _ = try? await feed.remove(id: id)
                            }
                        case 7: _ = try? await feed.trim(maxRows: pick % 20)
                        case 8:
                            if let id = snapshot.rows.id(at: 0) {
                                _ = try? await feed.update(
                                    Post(id: id, revision: pick, section: sectioned ? "k\(pick % 3)" : nil))
                            }
                        default: await feed.retry()
                        }
                    }
                }
            }
            try await ReferenceModelTests.check(recorder, feed, test, "seed \(seed) burst \(burst)")
        }
        failing.value = false
        try await scrollToTheEnd(
            feed, "seed \(seed)", refreshingFirst: true, retryingFailures: true, fillingGapsFromBothEnds: true)
        try await ReferenceModelTests.check(recorder, feed, test, "seed \(seed) end")
        let shown = Set(await feed.snapshot.ids)
        let missing = Set(server.items.map(\.id)).subtracting(shown).subtracting(removed.value)
        #expect(missing.isEmpty, "seed \(seed): never fetched \(missing.sorted())")
    }

    /// retry() racing refresh() after a failed next page and a failed refresh.
    @Test func retryRacingARefreshLeavesConsistentStates() async throws {
        let server = ModelServer(.posts("p", 40), pageSize: 10)
        let mode = Locked(Mode.ok)
        let source = ScriptedSource<Post> { request in
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...5)))
            switch (mode.value, request) {
            case (.failRefresh, _): throw URLError(.timedOut)
            default: return server.page(for: request)
            }
        }
        let feed = try test.feed(source)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        mode.value = .failRefresh
        await feed.loadNextPage()
        await feed.refresh()
        mode.value = .ok
        server.items = .posts("n", 4) + server.items
        async let a: Void = feed.retry()
        async let b: Void = feed.refresh()
        async let c: Void = feed.retry()
        _ = await (a, b, c)
        try await ReferenceModelTests.check(recorder, feed, test, "retry racing refresh")
        try await scrollToTheEnd(feed)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }
}
