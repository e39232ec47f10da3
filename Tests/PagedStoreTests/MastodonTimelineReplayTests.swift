import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Mastodon home timeline replayed on loopback with the API's documented paging (`max_id`,
/// `min_id`, `Link`) and its retention of a few hundred posts, through `HTTPPageSource`: the
/// timeline behaviours end to end, with the HTTP layer as an app would use it.
@Suite(.serialized, .limit(minutes: 3)) struct MastodonTimelineReplayTests {
    let server: LoopbackServer
    let test: FeedTestCase

    init() throws {
        server = try LoopbackServer()
        test = try FeedTestCase()
    }

    func homeRequests() async throws -> Int {
        try await server.seen().filter { $0.path == "/mastodon/home" }.count
    }

    func feed(_ policy: FeedPolicy) throws -> Feed<MastodonStatus> {
        try test.store().feed(
            "home", source: mastodonHome(url: server.url("mastodon/home"), token: "t"), policy: policy)
    }

    /// The server's statuses, newest first, as ids.
    func serverIDs(_ count: Int, newest: Int) -> [String] {
        (0..<count).map { String(113_000_000_000_000_000 + (newest - $0) * 65_536) }
    }

    @Test func newPostsArriveByTheNewerCursorAndALongAbsenceIsFilledFromTheBottom() async throws {
        try await server.control("mastodon/home/reset", ["count": "100"])
        let feed = try feed(
            FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, refreshMode: .newerThanHead(maxPages: 2)))
        await feed.refresh()
        await feed.loadNextPage()
        #expect(await feed.snapshot.ids == serverIDs(40, newest: 100))

        try await server.control("mastodon/home/publish", ["count": "5"])
        var before = try await homeRequests()
        await feed.refresh()
        #expect(try await homeRequests() - before == 2, "five new posts, then the empty page that proves the head")
        #expect(await feed.snapshot.ids == serverIDs(45, newest: 105))

        // A long absence: 90 posts. Two newer pages (the policy's limit) and the first page leave a
        // gap of 30 in the middle; filling it from the bottom continues where the reader left off.
        try await server.control("mastodon/home/publish", ["count": "90"])
        await feed.refresh()
        var snapshot = await feed.snapshot
        #expect(snapshot.gaps.map(\.afterRow) == [19])
        before = try await homeRequests()
        while let gap = await feed.snapshot.gaps.first, try await homeRequests() - before < 5 {
            await feed.loadGap(gap, from: .bottom)
        }
        snapshot = await feed.snapshot
        #expect(snapshot.gaps.isEmpty)
        #expect(try await homeRequests() - before == 2, "30 missing: 20 and then 10 that reach the rows above")
        #expect(snapshot.ids == serverIDs(135, newest: 195))
    }

    @Test func postsDeletedBelowAGapDisappearWhenTheGapIsFilled() async throws {
        try await server.control("mastodon/home/reset", ["count": "100"])
        let feed = try feed(FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        await feed.loadNextPage()  // statuses 100…61
        try await server.control("mastodon/home/publish", ["count": "30"])
        await feed.refresh()  // 130…111, a gap of ten, then 100…61
        for deleted in [100, 98, 105] { try await server.control("mastodon/home/delete", ["n": "\(deleted)"]) }
        let rowsBefore = await feed.snapshot.ids
        let before = try await homeRequests()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        let snapshot = await feed.snapshot
        #expect(try await homeRequests() - before == 1)
        #expect(snapshot.gaps.isEmpty)
        let shown = (61...130).reversed().filter { ![100, 98, 105].contains($0) }
        #expect(snapshot.ids == shown.map { String(113_000_000_000_000_000 + $0 * 65_536) })
        #expect(snapshot.change.deletedRows == [20, 22].map { IndexPath(section: 0, row: $0) }, "100 and 98")
        #expect(snapshot.change.insertedRows == (20..<29).map { IndexPath(section: 0, row: $0) }, "110…101 but 105")
        #expect(try BatchUpdate.apply(snapshot.change, to: rowsBefore, new: snapshot.ids) == snapshot.ids)
    }

    @Test func aGapOlderThanTheServerKeepsBecomesUnfillable() async throws {
        try await server.control("mastodon/home/reset", ["count": "20", "keep": "100"])
        let feed = try feed(FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        try await server.control("mastodon/home/publish", ["count": "200"])
        await feed.refresh()
        while let gap = await feed.snapshot.gaps.first, gap.state != .unfillable {
            await feed.loadGap(gap)
        }
        let snapshot = await feed.snapshot
        #expect(snapshot.gaps.map(\.state) == [.unfillable])
        #expect(snapshot.ids == serverIDs(100, newest: 220) + serverIDs(20, newest: 20))
        await feed.dismissGap(try #require(snapshot.gaps.first))
        #expect(await feed.snapshot.gaps.isEmpty)
    }
}
