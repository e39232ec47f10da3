import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A next page in flight while the feed's bottom moves under it (a local insert or removal at the
/// bottom, a trim, another store replacing or extending the list) or whose page repeats the bottom
/// row: the page lands only where it still continues the feed, or is fetched again, and every change
/// applies as UIKit reads it.
@Suite(.limit(minutes: 3)) struct NextPageAgainstAMovedBottomTests: FeedRuleSuite {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

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
}
