import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Architecture rule 2: the latest request wins, and a second next-page call joins the first.
@Suite(.limit()) struct LatestRequestWinsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func twoRefreshesAnsweredInReverseOrderApplyOnlyTheLater() async throws {
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source)
        async let first: Void = feed.refresh()
        let early = await source.nextFetch()
        async let second: Void = feed.refresh()
        let late = await source.nextFetch()
        late.respond(Page(items: .posts("late", 3), olderCursor: "late2"))
        early.respond(Page(items: .posts("early", 3), olderCursor: "early2"))
        _ = await (first, second)
        #expect(await feed.snapshot.ids == ["late0", "late1", "late2"])
        #expect(try test.idsOnDisk() == ["late0", "late1", "late2"])
        #expect(try test.recordOnDisk()?.oldestCursor == "late2")
    }

    @Test func aNextPageInFlightDuringARefreshThatKeepsTheBottomIsKept() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do { await (try test.feed(server.source)).refresh() }
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source)
        async let next: Void = feed.loadNextPage()
        let nextFetch = await source.nextFetch()
        async let refresh: Void = feed.refresh()
        let refreshFetch = await source.nextFetch()
        server.items = .posts("new", 2) + server.items
        refreshFetch.respond(server.page(for: .first))
        _ = await refresh
        nextFetch.respond(server.page(for: nextFetch.request))
        _ = await next
        #expect(try test.idsOnDisk() == ["new0", "new1"] + (0..<20).map { "p\($0)" })
        #expect(await feed.snapshot.ids == (try test.idsOnDisk()))
        #expect(await feed.snapshot.nextPage == .idle, "the user never has to scroll again to get the spinner back")
    }

    @Test func aNextPageMadeStaleByARefreshThatReplacedTheBottomStartsAgainFromTheNewBottom() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do { await (try test.feed(server.source)).refresh() }
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source)
        await feed.rowDidAppear(9)  // the reader is at the bottom
        let staleFetch = await source.nextFetch()
        async let refresh: Void = feed.refresh()
        let refreshFetch = await source.nextFetch()
        // A whole new list: the refresh replaces the rows, and the old bottom's cursor is gone.
        refreshFetch.respond(Page(items: .posts("n", 10), olderCursor: "n-older"))
        _ = await refresh
        staleFetch.respond(server.page(for: staleFetch.request))
        let restarted = await source.nextFetch()
        #expect(restarted.request == .olderThan(cursor: "n-older"), "the next page starts again from the new bottom")
        restarted.respond(Page(items: .posts("m", 5), olderCursor: nil))
        await feed.waitUntilIdle()
        #expect(try test.idsOnDisk() == (0..<10).map { "n\($0)" } + (0..<5).map { "m\($0)" })
        #expect(await feed.snapshot.nextPage == .endReached)
    }

    @Test func aNextPageAskedOfAListThatARefreshReplacedIsDroppedThoughTheNewListRepeatsItsCursor() async throws {
        // A page-numbered server hands out "2" as the next cursor of every list it serves: the cursor
        // string alone cannot tell the old bottom from the new one.
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do { await (try test.feed(server.pageNumberSource)).refresh() }
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source)
        await feed.rowDidAppear(9)  // the reader is at the bottom
        let staleFetch = await source.nextFetch()
        #expect(staleFetch.request == .olderThan(cursor: "2"))
        async let refresh: Void = feed.refresh()
        let refreshFetch = await source.nextFetch()
        refreshFetch.respond(Page(items: .posts("n", 10), olderCursor: "2"))
        _ = await refresh
        staleFetch.respond(Page(items: Array(server.items[10..<20]), olderCursor: "3"))
        let restarted = await source.nextFetch()
        #expect(restarted.request == .olderThan(cursor: "2"), "the next page starts again from the new bottom")
        restarted.respond(Page(items: Array(Array<Post>.posts("n", 20)[10...]), olderCursor: nil))
        await feed.waitUntilIdle()
        #expect(try test.idsOnDisk() == (0..<20).map { "n\($0)" }, "no row of the old list lands under the new one")
        #expect(await feed.snapshot.ids == (try test.idsOnDisk()))
        #expect(await feed.snapshot.nextPage == .endReached)
    }

    @Test func twoNextPageCallsShareOneFetch() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do { await (try test.feed(server.source)).refresh() }
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source)
        let events = await feed.events
        async let first: Void = feed.loadNextPage()
        let fetch = await source.nextFetch()
        async let second: Void = feed.loadNextPage()
        for await event in events where event.kind == .joined { break }
        fetch.respond(server.page(for: fetch.request))
        _ = await (first, second)
        #expect(source.requests.count == 1)
        #expect(await feed.snapshot.ids.count == 20)
    }
}
