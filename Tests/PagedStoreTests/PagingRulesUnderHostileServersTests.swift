import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Where the paging rules meet a hostile world: next pages against a bottom that moved, newer-cursor
/// refreshes that loop, lie or prove deletions, ranked lists with bumped and new posts, cancelled
/// callers and a store closed mid-loop. Every change is applied as UIKit would, and the rows are
/// compared with the file.
@Suite struct PagingRulesUnderHostileServersTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    static func posts(_ prefix: String, _ range: Range<Int>) -> [Post] { range.map { Post(id: "\(prefix)\($0)") } }
    static func ids(_ prefix: String, _ range: Range<Int>) -> [String] { range.map { "\(prefix)\($0)" } }

    func check(_ recorder: SnapshotRecorder<Post>, _ feed: Feed<Post>, _ context: String) async throws {
        try await ReferenceModelTests.check(recorder, feed, test, context)
    }

    // MARK: Newer-cursor refresh

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

    // MARK: Next page against a moved bottom

    /// Seeds p0..p9 with older cursor "c1" (first page, by a held source).
    func seeded(
        _ source: ScriptedSource<Post>, policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never)
    ) async throws
        -> Feed<Post>
    {
        let feed = try test.feed(source, policy: policy)
        let refresh = Task { await feed.refresh() }
        await source.nextFetch().respond(Page(items: Self.posts("p", 0..<10), olderCursor: "c1"))
        await refresh.value
        return feed
    }

    /// A local insert at the very bottom while a next page is in flight: the page is dropped, but
    /// nothing stays loading and the next call loads it.
    @Test func aLocalInsertAtTheBottomWhileANextPageIsInFlight() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let recorder = await SnapshotRecorder(feed)
        let next = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        try await feed.insert(Post(id: "local"), at: 10)
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await next.value
        #expect(await feed.snapshot.nextPage != .loading)
        try await check(recorder, feed, "after the dropped page")
        let again = Task { await feed.loadNextPage() }
        let retry = await source.nextFetch()
        #expect(retry.request == .olderThan(cursor: "c1"))
        retry.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await again.value
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<10) + ["local"] + Self.ids("p", 10..<20))
        try await check(recorder, feed, "after the page loaded again")
    }

    /// The reader is at the bottom (the page is a prefetch): a local insert at the bottom drops the
    /// page and it starts again by itself.
    @Test func aLocalInsertAtTheBottomWhileAPrefetchIsInFlightRestartsIt() async throws {
        // Lets the responder reach the feed it answers (to change the feed while a page is "on the wire").
        let box = Locked<Feed<Post>?>(nil)
        let calls = Locked(0)
        let source = ScriptedSource<Post> { request in
            switch request {
            case .first: return Page(items: Self.posts("p", 0..<10), olderCursor: "c1")
            case .olderThan("c1"):
                if calls.increment() == 1, let feed = box.value { try await feed.insert(Post(id: "local"), at: 10) }
                return Page(items: Self.posts("p", 10..<20), olderCursor: "c2")
            default: return Page(items: [], olderCursor: nil)
            }
        }
        let feed = try test.feed(source)
        box.value = feed
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        await feed.rowDidAppear(9)
        await feed.waitUntilIdle()
        #expect(source.requests.filter { $0 == .olderThan(cursor: "c1") }.count == 2)
        #expect(try test.idsOnDisk().starts(with: Self.ids("p", 0..<10) + ["local"] + Self.ids("p", 10..<20)))
        try await check(recorder, feed, "prefetch restarted")
    }

    /// An optimistic remove of the bottom row while a next page is in flight.
    @Test func anOptimisticRemoveOfTheBottomRowWhileANextPageIsInFlight() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let recorder = await SnapshotRecorder(feed)
        let next = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        #expect(try await feed.remove(id: "p9") { _ in })
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await next.value
        try await check(recorder, feed, "after the page")
        if await feed.snapshot.ids.count == 9 {
            let again = Task { await feed.loadNextPage() }
            await source.nextFetch().respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
            await again.value
        }
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<9) + Self.ids("p", 10..<20))
        try await check(recorder, feed, "after the page loaded again")
    }

    /// A trim while a next page is in flight.
    @Test func aTrimWhileANextPageIsInFlight() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let recorder = await SnapshotRecorder(feed)
        let next = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        _ = try await feed.trim(maxRows: 5)
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await next.value
        let disk = try test.idsOnDisk()
        #expect(!disk.contains("p10") || disk.contains("p9"), "a page appended below a trimmed bottom: \(disk)")
        try await check(recorder, feed, "trim")
    }

    /// A server whose next page repeats the old bottom at its top (the list shifted by one).
    @Test func aNextPageThatRepeatsTheBottomRow() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let recorder = await SnapshotRecorder(feed)
        let next = Task { await feed.loadNextPage() }
        await source.nextFetch().respond(Page(items: Self.posts("p", 9..<19), olderCursor: "c2"))
        await next.value
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<19))
        try await check(recorder, feed, "repeated bottom")
    }

    /// Store B replaces the list (a page-numbered server: same cursor "c1") while A's next page is in
    /// flight: A must not append the old list's page 2 under B's list.
    @Test func anotherStoreReplacesTheListWhileANextPageIsInFlight() async throws {
        let source = ScriptedSource<Post>()
        let feedA = try await seeded(source)
        let recorder = await SnapshotRecorder(feedA)
        let next = Task { await feedA.loadNextPage() }
        let fetch = await source.nextFetch()
        let sourceB = ScriptedSource<Post> { _ in Page(items: Self.posts("n", 0..<10), olderCursor: "c1") }
        let feedB = try test.feed(sourceB)
        await feedB.refresh()
        #expect(try test.idsOnDisk() == Self.ids("n", 0..<10))
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await next.value
        #expect(try test.idsOnDisk() == Self.ids("n", 0..<10))
        #expect(await feedA.snapshot.ids == Self.ids("n", 0..<10))
        try await check(recorder, feedA, "store B replaced")
    }

    // MARK: Cancellation

    /// A cancelled refresh caller returns while the server has not answered; the late answer is
    /// dropped and nothing stays loading; the next refresh works.
    @Test func aCancelledRefreshCallerAndALateAnswer() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let recorder = await SnapshotRecorder(feed)
        let refresh = Task { await feed.refresh() }
        let fetch = await source.nextFetch()
        refresh.cancel()
        await refresh.value
        fetch.respond(Page(items: Self.posts("x", 0..<10), olderCursor: "c1"))
        #expect(await feed.snapshot.refresh != .loading)
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<10))
        let again = Task { await feed.refresh() }
        await source.nextFetch().respond(Page(items: [Post(id: "new")] + Self.posts("p", 0..<9), olderCursor: "c1"))
        await again.value
        #expect(try test.idsOnDisk() == ["new"] + Self.ids("p", 0..<10))
        try await check(recorder, feed, "cancelled refresh")
    }

    /// A cancelled next-page caller: the page is dropped, and the next call fetches and commits it.
    @Test func aCancelledNextPageCallerThenAnother() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let recorder = await SnapshotRecorder(feed)
        let next = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        next.cancel()
        await next.value
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        #expect(await feed.snapshot.nextPage != .loading)
        let again = Task { await feed.loadNextPage() }
        await source.nextFetch().respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await again.value
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<20))
        try await check(recorder, feed, "cancelled next page")
    }

    // MARK: The new `.noOverlap` rule

    /// A ranked (page-numbered) list: a new post lands at the last place of page 1. With keepGap the
    /// gap it leaves must fill back to exactly the server's list.
    @Test func aNewPostAtTheLastPlaceOfARankedFirstPageKeepGap() async throws {
        try await rankedLastPlace(.keepGap)
    }

    /// The same with the default gap policy (`.replace`): does the reader lose the 40 rows below?
    @Test func aNewPostAtTheLastPlaceOfARankedFirstPageReplace() async throws {
        try await rankedLastPlace(.replace)
    }

    func rankedLastPlace(_ gapPolicy: FeedPolicy.GapPolicy) async throws {
        let list = Locked(Self.posts("p", 0..<50))
        let source = ScriptedSource<Post> { request in
            let items = list.value
            let page = Int(request.cursor ?? "1") ?? 1
            let slice = Array(items[min((page - 1) * 10, items.count)..<min(page * 10, items.count)])
            return Page(items: slice, olderCursor: page * 10 < items.count ? "\(page + 1)" : nil)
        }
        let feed = try test.feed(
            source,
            policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: gapPolicy, windowSize: 1_000, firstScreenRows: 1_000))
        await feed.refresh()
        while await feed.snapshot.nextPage != .endReached { await feed.loadNextPage() }
        #expect(await feed.snapshot.ids.count == 50)
        let recorder = await SnapshotRecorder(feed)
        list.mutate { $0.insert(Post(id: "NEW"), at: 9) }
        await feed.refresh()
        try await check(recorder, feed, "ranked refresh (\(gapPolicy))")
        let afterRefresh = await feed.snapshot.ids
        #expect(afterRefresh.count >= 50, "the refresh threw away the reader's rows: \(afterRefresh.count) left")
        var fills = 0
        while let gap = await feed.snapshot.gaps.first, fills < 20 {
            await feed.loadGap(gap)
            fills += 1
        }
        while await feed.snapshot.nextPage != .endReached, fills < 40 {
            await feed.loadNextPage()
            fills += 1
        }
        #expect(await feed.snapshot.ids == list.value.map(\.id))
        try await check(recorder, feed, "ranked settled (\(gapPolicy))")
    }

    /// The user removed a row locally; the server still lists it, at the end of its first page.
    @Test func aLocallyRemovedRowAtTheEndOfTheRefreshPage() async throws {
        let list = Self.posts("p", 0..<50)
        let source = ScriptedSource<Post> { request in
            let page = Int(request.cursor ?? "1") ?? 1
            let slice = Array(list[(page - 1) * 10..<min(page * 10, list.count)])
            return Page(items: slice, olderCursor: page * 10 < list.count ? "\(page + 1)" : nil)
        }
        let feed = try test.feed(
            source, policy: FeedPolicy(refreshOnOpen: .never, windowSize: 1_000, firstScreenRows: 1_000))
        await feed.refresh()
        while await feed.snapshot.nextPage != .endReached { await feed.loadNextPage() }
        #expect(try await feed.remove(id: "p9"))
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        try await check(recorder, feed, "locally removed row")
        let ids = await feed.snapshot.ids
        #expect(ids.count >= 49, "a refresh with nothing new dropped the reader's rows: \(ids.count) left")
    }
}

extension PagingRulesUnderHostileServersTests {
    /// A refresh whose page moves an item into another section and changes it, while another item
    /// in a different section changes in place: every changed item is reconfigured, the batch holds.
    @Test func aRefreshThatMovesAndChangesItemsAcrossSections() async throws {
        let first = [
            Post(id: "a", section: "A"), Post(id: "b", section: "A"), Post(id: "c", section: "B"),
            Post(id: "d", section: "B"), Post(id: "e", section: "C"), Post(id: "f", section: "C"),
        ]
        let second = [
            Post(id: "e", revision: 1, section: "A"), Post(id: "a", section: "A"), Post(id: "b", section: "A"),
            Post(id: "c", revision: 1, section: "B"), Post(id: "d", section: "B"), Post(id: "f", section: "C"),
        ]
        let pages = Locked([first, second])
        let source = ScriptedSource<Post> { _ in
            var page: [Post] = []
            pages.mutate { page = $0.count > 1 ? $0.removeFirst() : $0[0] }
            return Page(items: page, olderCursor: nil)
        }
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        #expect(try test.idsOnDisk() == ["e", "a", "b", "c", "d", "f"])
        try await check(recorder, feed, "moved and changed across sections")
    }

    /// The reader's row disappears in a refresh that replaces the whole list: any anchor emitted must
    /// name a row the new list has.
    @Test func theAnchorWhenTheWholeWindowIsReplaced() async throws {
        let pages = Locked([Self.posts("p", 0..<30), Self.posts("x", 0..<30)])
        let source = ScriptedSource<Post> { _ in
            var page: [Post] = []
            pages.mutate { page = $0.count > 1 ? $0.removeFirst() : $0[0] }
            return Page(items: page, olderCursor: "c1")
        }
        let feed = try test.feed(
            source,
            policy: FeedPolicy(
                refreshOnOpen: .never, gapPolicy: .replace, prefetchDistance: 0, keepsReadingPosition: true))
        await feed.refresh()
        await feed.rowDidAppear(12)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        #expect(try test.idsOnDisk() == Self.ids("x", 0..<30))
        try await check(recorder, feed, "whole window replaced")
    }
}

extension PagingRulesUnderHostileServersTests {
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

extension PagingRulesUnderHostileServersTests {
    /// Store B loads the same next page while A's is in flight: A's answer is superseded, A takes
    /// the file's rows, and nothing stays loading.
    @Test func anotherStoreLoadsTheSameNextPageFirst() async throws {
        let source = ScriptedSource<Post>()
        let feedA = try await seeded(source)
        let recorder = await SnapshotRecorder(feedA)
        let next = Task { await feedA.loadNextPage() }
        let fetch = await source.nextFetch()
        let sourceB = ScriptedSource<Post> { _ in Page(items: Self.posts("p", 10..<20), olderCursor: "c2") }
        let feedB = try test.feed(sourceB)
        await feedB.loadNextPage()
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await next.value
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<20))
        #expect(await feedA.snapshot.ids == Self.ids("p", 0..<20))
        try await check(recorder, feedA, "store B loaded the page first")
    }

    /// Two callers of one next page; the one that started it is cancelled: the other still gets it.
    @Test func theStarterOfANextPageIsCancelledWhileAnotherWaits() async throws {
        let source = ScriptedSource<Post>()
        let feed = try await seeded(source)
        let recorder = await SnapshotRecorder(feed)
        let events = await feed.events
        let first = Task { await feed.loadNextPage() }
        let fetch = await source.nextFetch()
        let second = Task { await feed.loadNextPage() }
        for await event in events where event.kind == .joined { break }
        first.cancel()
        await first.value
        fetch.respond(Page(items: Self.posts("p", 10..<20), olderCursor: "c2"))
        await second.value
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<20), "the waiting caller lost its page")
        try await check(recorder, feed, "starter cancelled")
    }

    /// A keepGap refresh on a ranked list whose new post lands last on page 1 leaves a gap with no
    /// bottom cursor: filling it from the bottom must not hang, loop or stay loading, and reading on
    /// must reach the server's list.
    @Test func aGapWithoutABottomCursorIsFilledFromTheEndItCan() async throws {
        let list = Locked(Self.posts("p", 0..<50))
        let source = ScriptedSource<Post> { request in
            let items = list.value
            let page = Int(request.cursor ?? "1") ?? 1
            let slice = Array(items[min((page - 1) * 10, items.count)..<min(page * 10, items.count)])
            return Page(items: slice, olderCursor: page * 10 < items.count ? "\(page + 1)" : nil)
        }
        let feed = try test.feed(
            source,
            policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 1_000, firstScreenRows: 1_000))
        await feed.refresh()
        while await feed.snapshot.nextPage != .endReached { await feed.loadNextPage() }
        let recorder = await SnapshotRecorder(feed)
        list.mutate { $0.insert(Post(id: "NEW"), at: 9) }
        await feed.refresh()
        var fills = 0
        while let gap = await feed.snapshot.gaps.first, fills < 20 {
            // A gap without a bottom cursor: `.bottom` silently does nothing (no fetch, no failure),
            // so an app filling from the bottom keeps this gap forever. Fill it from the end it can.
            await feed.loadGap(gap, from: gap.canFillFromBottom ? .bottom : .top)
            fills += 1
            if case .failed = gap.state { break }
        }
        try await check(recorder, feed, "gap filled")
        let gapsLeft = await feed.snapshot.gaps
        #expect(gapsLeft.isEmpty, "gap left: \(gapsLeft)")
        #expect(await feed.snapshot.ids == list.value.map(\.id))
    }

    /// A policy with an infinite or NaN maxAge opens (and reopens) without an error.
    @Test(arguments: [Double.infinity, Double.nan]) func aPolicyWithANonFiniteMaxAgeOpens(maxAge: Double) async throws {
        let source = ScriptedSource<Post> { _ in Page(items: Self.posts("p", 0..<3), olderCursor: nil) }
        let policy = FeedPolicy(refreshOnOpen: .never, maxAge: maxAge)
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        _ = try test.feed(source, policy: policy)
        #expect(try test.idsOnDisk() == Self.ids("p", 0..<3))
    }
}

extension PagingRulesUnderHostileServersTests {
    static func ranked(_ list: Locked<[Post]>, pageSize: Int = 10) -> ScriptedSource<Post> {
        ScriptedSource<Post> { request in
            let items = list.value
            let page = Int(request.cursor ?? "1") ?? 1
            let slice = Array(items[min((page - 1) * pageSize, items.count)..<min(page * pageSize, items.count)])
            return Page(items: slice, olderCursor: page * pageSize < items.count ? "\(page + 1)" : nil)
        }
    }

    /// A ranked list: two deep posts bumped to the top, one changed, two new posts published; every
    /// gap filled and every page read, the feed is the server's list.
    @Test(arguments: [FeedPolicy.GapPolicy.keepGap, .replace]) func aRankedListWithBumpsAndNewPosts(
        gapPolicy: FeedPolicy.GapPolicy
    ) async throws {
        let list = Locked(Self.posts("p", 0..<50))
        let source = Self.ranked(list)
        let feed = try test.feed(
            source,
            policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: gapPolicy, windowSize: 1_000, firstScreenRows: 1_000))
        await feed.refresh()
        while await feed.snapshot.nextPage != .endReached { await feed.loadNextPage() }
        let recorder = await SnapshotRecorder(feed)
        list.mutate { items in
            let p30 = items.remove(at: 30)
            var p40 = items.remove(at: items.firstIndex { $0.id == "p40" }!)
            p40.revision = 1
            items.insert(contentsOf: [Post(id: "N0"), p40, Post(id: "N1"), p30], at: 0)
        }
        await feed.refresh()
        try await check(recorder, feed, "ranked refresh")
        var steps = 0
        while steps < 40 {
            steps += 1
            if let gap = await feed.snapshot.gaps.first {
                await feed.loadGap(gap)
            } else if await feed.snapshot.nextPage != .endReached {
                await feed.loadNextPage()
            } else {
                break
            }
        }
        try await check(recorder, feed, "ranked settled")
        #expect(await feed.snapshot.ids == list.value.map(\.id))
    }

    /// A page-numbered list shifts down by two while page 3 is on the wire; a refresh merges the new
    /// posts on top (the bottom stays), then the shifted page 3 lands: it repeats p18 and p19.
    @Test func aShiftedPageThreeLandsAfterARefreshKeptTheBottom() async throws {
        let source = ScriptedSource<Post>()
        let feed = try test.feed(
            source,
            policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 1_000, firstScreenRows: 1_000))
        let seed = Task { await feed.refresh() }
        await source.nextFetch().respond(Page(items: Self.posts("p", 0..<10), olderCursor: "2"))
        await seed.value
        let second = Task { await feed.loadNextPage() }
        await source.nextFetch().respond(Page(items: Self.posts("p", 10..<20), olderCursor: "3"))
        await second.value
        let recorder = await SnapshotRecorder(feed)
        let third = Task { await feed.loadNextPage() }
        let pageThree = await source.nextFetch()
        let refresh = Task { await feed.refresh() }
        await source.nextFetch().respond(
            Page(items: [Post(id: "N0"), Post(id: "N1")] + Self.posts("p", 0..<8), olderCursor: "2"))
        await refresh.value
        pageThree.respond(Page(items: Self.posts("p", 18..<28), olderCursor: "4"))
        await third.value
        await feed.waitUntilIdle()
        #expect(try test.idsOnDisk() == ["N0", "N1"] + Self.ids("p", 0..<28))
        try await check(recorder, feed, "shifted page three")
    }
}
