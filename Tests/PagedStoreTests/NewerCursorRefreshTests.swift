import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Refresh by the newer-side cursor (`FeedPolicy.RefreshMode.newerThanHead`): only what is new is
/// fetched, page by page above the cached head, until the server answers with nothing newer.
@Suite struct NewerCursorRefreshTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A 1,000-post backlog, 40 new posts, pages of 20.
    func backlog(
        _ mode: FeedPolicy.RefreshMode, gapPolicy: FeedPolicy.GapPolicy = .keepGap
    ) async throws -> (
        Feed<Post>, TimelineModel, ScriptedSource<Post>
    ) {
        let server = TimelineModel(count: 1_000, pageSize: 20, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { request in server.page(for: request) }
        let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: gapPolicy, refreshMode: mode, windowSize: 5_000, firstScreenRows: 5_000)
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        for _ in 0..<49 { await feed.loadNextPage() }
        server.publish(40)
        return (feed, server, source)
    }

    @Test func aRefreshFetchesOnlyTheNewPostsAndNeedsNoGap() async throws {
        let (feed, server, source) = try await backlog(.newerThanHead(maxPages: 5))
        let before = source.requests.count
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        let requests = Array(source.requests[before...])
        #expect(requests.count == 3, "two pages of 20 and the empty answer that proves the head was reached")
        #expect(requests.allSatisfy { if case .newerThan = $0 { true } else { false } })
        let snapshot = await feed.snapshot
        #expect(snapshot.gaps.isEmpty)
        #expect(snapshot.ids == server.items.map(\.id))
        let snapshots = await recorder.snapshots(settlingOn: feed).dropFirst()  // the first is the one before
        let inserted = snapshots.map { $0.change.insertedRows.map { $0[1] } }.filter { !$0.isEmpty }
        #expect(inserted == [Array(0..<20), Array(0..<20)], "each page is inserted on top as it arrives")
    }

    @Test func theFirstPageRefreshNeedsAGapAndTwoMoreRequestsToFillIt() async throws {
        let (feed, server, source) = try await backlog(.firstPage)
        let before = source.requests.count
        await feed.refresh()
        #expect(await feed.snapshot.gaps.count == 1)
        while let gap = await feed.snapshot.gaps.first { await feed.loadGap(gap) }
        #expect(source.requests.count - before == 3, "the first page, then two fills (the last proves the overlap)")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    @Test func moreNewPagesThanTheLimitFallBackToTheFirstPageAndTheGapPolicy() async throws {
        let (feed, server, source) = try await backlog(.newerThanHead(maxPages: 1))
        let before = source.requests.count
        await feed.refresh()
        let requests = Array(source.requests[before...])
        #expect(requests.first.map { if case .newerThan = $0 { true } else { false } } == true)
        #expect(requests.last == .first)
        let snapshot = await feed.snapshot
        // The newer page (posts 21-40) sits right on the head; the first page (1-20) lands above it
        // and shares no id with it, so the gap policy keeps a gap that the next fill closes at once.
        while let gap = await feed.snapshot.gaps.first { await feed.loadGap(gap) }
        #expect(await feed.snapshot.ids == server.items.map(\.id))
        #expect(snapshot.refresh == .idle)
    }

    @Test func aNewerCursorThatLagsBehindTheHeadIsFollowedToTheNewPosts() async throws {
        // The server's newest min_id page carries no newer cursor: the feed keeps the one it asked
        // with, and the next refresh's first answer holds only posts the feed has.
        let server = TimelineModel(
            count: 100, pageSize: 20, byPageNumber: false, sectioned: false, headPageHasNewerCursor: false)
        let source = ScriptedSource<Post> { request in server.page(for: request) }
        let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: .keepGap, refreshMode: .newerThanHead(maxPages: 5), windowSize: 5_000,
            firstScreenRows: 5_000)
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        while await feed.snapshot.nextPage != .endReached { await feed.loadNextPage() }
        server.publish(20)
        await feed.refresh()
        #expect(await feed.snapshot.ids == server.items.map(\.id))
        server.publish(30)
        let before = source.requests.count
        await feed.refresh()
        #expect(await feed.snapshot.ids == server.items.map(\.id), "the 30 new posts are shown")
        #expect(await feed.snapshot.gaps.isEmpty)
        let requests = Array(source.requests[before...])
        #expect(requests.allSatisfy { if case .newerThan = $0 { true } else { false } })
        #expect(requests.count == 3, "the known page whose cursor moved on, then two pages of new posts")
        // Nothing is newer now: a further refresh asks from the newest cursor and adds nothing.
        await feed.refresh()
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    @Test func aFeedWithNoRowsRefreshesByTheFirstPage() async throws {
        let server = TimelineModel(count: 30, pageSize: 10, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { request in server.page(for: request) }
        let feed = try test.feed(
            source, policy: FeedPolicy(refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 5)))
        await feed.refresh()
        #expect(source.requests == [.first])
        #expect(await feed.snapshot.ids.count == 10)
    }
}
