import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Refresh by the newer-side cursor (`FeedPolicy.RefreshMode.newerThanHead`): only what is new is
/// fetched, page by page above the cached head, until the server answers with nothing newer.
@Suite(.limit(minutes: 3)) struct NewerCursorRefreshTests {
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

    /// A newer page that proves the top row deleted, in a refresh that then trims the feed to its
    /// row limit: one change cannot name both, and the refresh's is a full reload that names no row.
    /// It shows at once, as the file has it: the next newer page went on top of the rows from before
    /// the refresh, and the list showed those until a later write read the file again.
    @Test func aNewerPageThatDeletesAndIsTrimmedShowsAtOnce() async throws {
        let source = ScriptedSource<Post> { request in
            switch request {
            case .first: Page(items: ["b", "c", "d"].map { Post(id: $0) }, olderCursor: "d", newerCursor: "nb")
            case .olderThan: Page(items: ["e", "f"].map { Post(id: $0) }, olderCursor: nil)
            // Above b: x, y, a, then c (b was deleted); above x, z; nothing above z.
            case .newerThan("nb"):
                Page(items: ["x", "y", "a", "c"].map { Post(id: $0) }, olderCursor: "c", newerCursor: "nx")
            case .newerThan("nx"): Page(items: [Post(id: "z")], olderCursor: "z", newerCursor: "nz")
            case .newerThan: Page(items: [], olderCursor: nil, newerCursor: nil)
            }
        }
        let policy = FeedPolicy(refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 5), maxRows: 6)
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        await feed.loadNextPage()
        #expect(await feed.snapshot.ids == ["b", "c", "d", "e", "f"])
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        let shown = await feed.snapshot.ids
        #expect(shown == (try test.idsOnDisk()), "the list shows the file's rows")
        #expect(shown == ["z", "x", "y", "a", "c", "d"], "b deleted, the bottom page trimmed, then z on top")
        #expect(source.requests.last == .newerThan(cursor: "nz"), "the refresh went on up")
        try await ReferenceModelTests.check(recorder, feed, test, "the trimmed newer page")
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
        try await scrollToTheEnd(feed)
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

/// Newer-cursor refreshes against hostile servers: pages that prove deletions, list known rows out
/// of order or skip hundreds, cursors that cycle, a store closed mid-loop, a small window.
extension NewerCursorRefreshTests: FeedRuleSuite {
    /// A newer page of known rows that skips one (proving it deleted) and whose newer cursor moves
    /// on is followed: the deletion must reach the snapshot, not only the file.
    @Test func aFollowedNewerPageThatProvesADeletionUpdatesTheSnapshot() async throws {
        let source = ScriptedSource<Post> { request in
            switch request {
            case .first: Page(items: Self.posts("h", 0..<10), olderCursor: nil, newerCursor: "n0")
            case .newerThan("n0"): Page(items: [Post(id: "h0"), Post(id: "h2")], olderCursor: nil, newerCursor: "n1")
            case .newerThan("n1"): Page(items: [Post(id: "new0")], olderCursor: nil, newerCursor: "n2")
            default: Page(items: [], olderCursor: nil, newerCursor: nil)
            }
        }
        let policy = FeedPolicy(refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 5))
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        let expected = ["new0", "h0"] + Self.ids("h", 2..<10)
        #expect(try test.idsOnDisk() == expected)
        #expect(await feed.snapshot.ids == expected, "the snapshot still shows h1, deleted on disk")
        try await check(recorder, feed, "followed newer page with a deletion")
        let changes = await recorder.snapshots(settlingOn: feed).map(\.change)
        #expect(
            changes.contains { $0.deletedRows.map { $0[1] } == [1] },
            "the deletion of h1 is never told as a deletion: \(changes)")
    }

    /// The same, but the followed page is the last one (nothing newer after it).
    @Test func aFollowedNewerPageThatProvesADeletionThenNothingNewer() async throws {
        let source = ScriptedSource<Post> { request in
            switch request {
            case .first: Page(items: Self.posts("h", 0..<10), olderCursor: nil, newerCursor: "n0")
            case .newerThan("n0"): Page(items: [Post(id: "h0"), Post(id: "h2")], olderCursor: nil, newerCursor: "n1")
            default: Page(items: [], olderCursor: nil, newerCursor: nil)
            }
        }
        let policy = FeedPolicy(refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 5))
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        let expected = ["h0"] + Self.ids("h", 2..<10)
        #expect(try test.idsOnDisk() == expected)
        #expect(await feed.snapshot.ids == expected)
        try await check(recorder, feed, "followed newer page with a deletion, then nothing newer")
        let changes = await recorder.snapshots(settlingOn: feed).map(\.change)
        #expect(
            changes.contains { $0.deletedRows.map { $0[1] } == [1] },
            "the deletion of h1 is never told as a deletion: \(changes)")
    }

    /// Known rows listed out of the feed's order prove nothing.
    @Test func aNewerPageListingKnownRowsOutOfOrderDeletesNothing() async throws {
        let source = ScriptedSource<Post> { request in
            switch request {
            case .first: Page(items: Self.posts("h", 0..<10), olderCursor: nil, newerCursor: "n0")
            case .newerThan("n0"): Page(items: [Post(id: "h5"), Post(id: "h1")], olderCursor: nil, newerCursor: nil)
            default: Page(items: [], olderCursor: nil, newerCursor: nil)
            }
        }
        let feed = try test.feed(
            source, policy: FeedPolicy(refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 5)))
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        #expect(try test.idsOnDisk() == Self.ids("h", 0..<10))
        try await check(recorder, feed, "out of order")
    }

    /// A newer page of 2 items that skips 598 cached rows proves at most 2 deletions: none.
    @Test func aNewerPageThatSkips598RowsDeletesNothing() async throws {
        let source = ScriptedSource<Post> { request in
            switch request {
            case .first: Page(items: Self.posts("h", 0..<600), olderCursor: nil, newerCursor: "n0")
            case .newerThan("n0"): Page(items: [Post(id: "h0"), Post(id: "h599")], olderCursor: nil, newerCursor: "n1")
            default: Page(items: [], olderCursor: nil, newerCursor: nil)
            }
        }
        let feed = try test.feed(
            source,
            policy: FeedPolicy(
                refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 5), windowSize: 2_000,
                firstScreenRows: 2_000))
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        #expect(try test.idsOnDisk() == Self.ids("h", 0..<600))
        try await check(recorder, feed, "liar")
    }

    /// A server that answers the same known page with cursors A → B → A stops, idle.
    @Test func newerCursorsThatCycleStop() async throws {
        let source = ScriptedSource<Post> { request in
            switch request {
            case .first: Page(items: Self.posts("h", 0..<10), olderCursor: nil, newerCursor: "n0")
            case .newerThan("n0"): Page(items: [Post(id: "h0")], olderCursor: nil, newerCursor: "A")
            case .newerThan("A"): Page(items: [Post(id: "h0")], olderCursor: nil, newerCursor: "B")
            case .newerThan("B"): Page(items: [Post(id: "h0")], olderCursor: nil, newerCursor: "A")
            default: Page(items: [Post(id: "h0")], olderCursor: nil, newerCursor: "n0")
            }
        }
        let feed = try test.feed(
            source, policy: FeedPolicy(refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 50)))
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        let before = source.requests.count
        await feed.refresh()
        #expect(source.requests.count - before <= 4)
        #expect(try test.idsOnDisk() == Self.ids("h", 0..<10))
        try await check(recorder, feed, "cycle")
        // And again: the stored cursor must not make the next refresh loop either.
        let again = source.requests.count
        await feed.refresh()
        #expect(source.requests.count - again <= 4)
        try await check(recorder, feed, "cycle again")
    }

    /// Closing the store while a newer-cursor refresh loop is on its second page ends it: the
    /// caller returns, nothing is left loading, and the second page is not written.
    @Test func closingTheStoreDuringANewerLoopEndsIt() async throws {
        let source = ScriptedSource<Post>()
        let store = try test.store()
        let feed = try store.feed(
            "home", source: source, policy: FeedPolicy(refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 5)))
        let first = Task { await feed.refresh() }
        await source.nextFetch().respond(Page(items: Self.posts("h", 0..<10), olderCursor: nil, newerCursor: "n0"))
        await first.value
        let refresh = Task { await feed.refresh() }
        let newer = await source.nextFetch()
        #expect(newer.request == .newerThan(cursor: "n0"))
        newer.respond(Page(items: [Post(id: "new0")], olderCursor: nil, newerCursor: "n1"))
        let second = await source.nextFetch()
        #expect(second.request == .newerThan(cursor: "n1"))
        store.close()
        await refresh.value
        second.respond(Page(items: [Post(id: "new1")], olderCursor: nil, newerCursor: "n2"))
        let snapshot = await feed.snapshot
        #expect(snapshot.refresh != .loading)
        #expect(try test.idsOnDisk() == ["new0"] + Self.ids("h", 0..<10))
        #expect(snapshot.ids == (try test.idsOnDisk()))
    }

    /// A window smaller than the feed: the followed known newer page deletes h1 on disk; the rows the
    /// snapshot has loaded must still be the file's rows at those indices.
    @Test(arguments: [false, true]) func aFollowedNewerDeletionWithASmallWindow(thenNewRows: Bool) async throws {
        let source = ScriptedSource<Post> { request in
            switch request {
            case .first: Page(items: Self.posts("h", 0..<40), olderCursor: nil, newerCursor: "n0")
            case .newerThan("n0"): Page(items: [Post(id: "h0"), Post(id: "h2")], olderCursor: nil, newerCursor: "n1")
            case .newerThan("n1") where thenNewRows:
                Page(items: [Post(id: "new0")], olderCursor: nil, newerCursor: "n2")
            default: Page(items: [], olderCursor: nil, newerCursor: nil)
            }
        }
        let policy = FeedPolicy(
            refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 5), windowSize: 8, firstScreenRows: 8)
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        let disk = try test.idsOnDisk()
        #expect(!disk.contains("h1"))
        let snapshot = await feed.snapshot
        #expect(snapshot.rows.count == disk.count)
        for row in snapshot.rows.loadedRange {
            #expect(
                snapshot.rows.id(at: row) == disk[row],
                "row \(row): snapshot \(snapshot.rows.id(at: row) ?? "-") vs file \(disk[row])")
        }
        let snapshots = await recorder.snapshots(settlingOn: feed)
        for (previous, next) in zip(snapshots, snapshots.dropFirst()) where !next.change.isFullReload {
            #expect(
                next.rows.count == previous.rows.count + next.change.insertedRows.count - next.change.deletedRows.count,
                "a change that does not add up: \(previous.rows.count) -> \(next.rows.count) with \(next.change)")
        }
    }
}
