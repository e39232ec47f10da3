import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Several `Feed`s on one store (two screens of one app): feeds of different keys stay apart under
/// interleaved operations, and two feeds of one key both keep paginating after either refreshes.
@Suite(.limit(minutes: 3)) struct SeveralFeedsOnOneStoreTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// Two feeds on one store, every operation interleaved on both: each stays its own.
    @Test func twoFeedsOnOneStoreStayApart() async throws {
        let a = ModelServer(.posts("a", 30), pageSize: 7)
        let b = ModelServer(.posts("b", 30), pageSize: 5)
        let slowA = ScriptedSource<Post> { request in
            try await Task.sleep(for: .milliseconds(2))
            return a.page(for: request)
        }
        let store = try test.store()
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, maxRows: 12)
        let feedA = try test.feed(slowA, policy: policy, key: "a", store: store)
        let feedB = try test.feed(b.source, policy: policy, key: "b", store: store)
        async let r1: Void = feedA.refresh()
        async let r2: Void = feedB.refresh()
        _ = await (r1, r2)
        a.items = .posts("na", 10) + a.items
        async let n1: Void = feedA.loadNextPage()
        async let n2: Void = feedB.loadNextPage()
        async let r3: Void = feedA.refresh()
        async let e1: Void = { try? await feedB.insert(Post(id: "lb"), at: 0) }()
        _ = await (n1, n2, r3, e1)
        try await scrollToTheEnd(feedA)
        try await scrollToTheEnd(feedB)
        #expect(await feedA.snapshot.ids == a.items.map(\.id))
        #expect(await feedB.snapshot.ids == ["lb"] + b.items.map(\.id))
        #expect(try test.idsOnDisk(key: "a") == a.items.map(\.id))
    }

    /// Two `Feed`s for one key on one store (two screens showing "home"): after the other refreshes,
    /// twice, the first still loads next pages past its first page.
    /// It guarded against the first's next pages being superseded for ever, its record never read again.
    @Test func twoFeedsForOneKeyOnOneStoreBothKeepPaginating() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let store = try test.store()
        let first = try test.feed(server.source, store: store)
        let second = try test.feed(server.source, store: store)
        await first.refresh()
        await second.refresh()
        await second.refresh()  // pull-to-refresh on the other screen, twice
        for _ in 0..<3 { await first.loadNextPage() }
        #expect(await first.snapshot.ids.count > 10, "the first screen is stuck at its first page")
    }
}
