import Foundation
import PagedStoreTesting
import Testing

@testable import PagedStore

/// Rule 2: the latest request wins, and a second next-page call joins the first.
@Suite struct LatestRequestWinsTests {
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

    @Test func aRefreshDropsTheNextPageInFlightUnwritten() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do { await (try test.feed(server.source)).refresh() }
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source)
        let events = await feed.events
        async let next: Void = feed.loadNextPage()
        let nextFetch = await source.nextFetch()
        async let refresh: Void = feed.refresh()
        let refreshFetch = await source.nextFetch()
        nextFetch.respond(server.page(for: nextFetch.request))
        _ = await next
        #expect(try test.idsOnDisk().count == 10, "the superseded next page never reaches the disk")
        refreshFetch.respond(server.page(for: .first))
        _ = await refresh
        #expect(try test.idsOnDisk().count == 10)
        #expect(await feed.snapshot.nextPage == .idle)
        var kinds: [FeedEvent.Kind] = []
        for await event in events {
            kinds.append(event.kind)
            if event.kind == .committed { break }
        }
        #expect(kinds == [.requestStarted, .requestStarted, .superseded, .committed])
    }

    @Test func twoNextPageCallsShareOneFetch() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        do { await (try test.feed(server.source)).refresh() }
        let source = ScriptedSource<Post>()
        let feed = try test.feed(source)
        async let first: Void = feed.loadNextPage()
        let fetch = await source.nextFetch()
        async let second: Void = feed.loadNextPage()
        try await Task.sleep(for: .milliseconds(20))
        fetch.respond(server.page(for: fetch.request))
        _ = await (first, second)
        #expect(source.requests.count == 1)
        #expect(await feed.snapshot.ids.count == 20)
    }
}
