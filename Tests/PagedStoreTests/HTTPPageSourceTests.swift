import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The HTTP page source against a real server on loopback.
@Suite(.serialized, .limit(minutes: 3)) struct HTTPPageSourceTests {
    let server: LoopbackServer
    let test: FeedTestCase

    init() throws {
        server = try LoopbackServer()
        test = try FeedTestCase()
    }

    struct Item: FeedItem, Codable, Equatable {
        let id: String
        var title: String?
    }

    func feed(_ source: HTTPPageSource<Item>) throws -> Feed<Item> {
        try test.store().feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
    }

    @Test func aJSONBodyWithKeyPathsPagesToTheEnd() async throws {
        let source = HTTPPageSource<Item>(
            url: server.url("body"), convention: .jsonBody(itemsPath: "data.items", olderCursorPath: "meta.next_cursor")
        )
        let feed = try feed(source)
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        let snapshot = await feed.snapshot
        #expect(snapshot.rows.count == 25)
        #expect(snapshot.rows[24]?.title == "Item 24")
        #expect(snapshot.nextPage == .endReached)
        #expect(try test.recordOnDisk()?.oldestCursor == nil)
    }

    @Test func linkHeadersCarryTheCursors() async throws {
        let feed = try feed(HTTPPageSource<Item>(url: server.url("link"), convention: .linkHeader))
        await feed.refresh()
        #expect(try test.recordOnDisk()?.oldestCursor?.hasSuffix("/link?after=i9") == true)
        await feed.loadNextPage()
        await feed.loadNextPage()
        #expect(await feed.snapshot.rows.count == 25)
        #expect(await feed.snapshot.nextPage == .endReached)
    }

    @Test func aStatusErrorCarriesRetryAfterAndRetryWaitsItOut() async throws {
        let source = HTTPPageSource<Item>(
            url: server.url("flaky"),
            convention: .jsonBody(itemsPath: "data.items", olderCursorPath: "meta.next_cursor"))
        let feed = try feed(source)
        // Retry-After counts from the failure, which comes after this: a loaded machine may take a
        // while between the failure and the retry call, so the wait is measured from here.
        let started = Date()
        await feed.refresh()
        guard case .error(let error) = await feed.snapshot.content else {
            Issue.record("expected the error state")
            return
        }
        #expect(error.retryAfter == 1)
        #expect(error.message.contains("HTTP 503"))
        await feed.retry()
        #expect(Date().timeIntervalSince(started) >= 1, "retry waited for Retry-After")
        #expect(await feed.snapshot.rows.count == 10)
    }

    @Test func aResponseOfTheWrongShapeNamesWhatIsMissing() async throws {
        let source = HTTPPageSource<Item>(url: server.url("bad"), convention: .jsonBody(itemsPath: "data.items"))
        do {
            _ = try await source.fetch(.first)
            Issue.record("expected a shape error")
        } catch let error as HTTPSourceError {
            #expect(error == .invalidResponse("no array of items at \"data.items\""))
        }
    }

    @Test func responsesCompletingOutOfOrderKeepOnlyTheLatestRefresh() async throws {
        let source = HTTPPageSource<Item>(
            url: server.url("race"), convention: .jsonBody(itemsPath: "data.items", olderCursorPath: "meta.next_cursor")
        )
        let feed = try feed(source)
        async let slow: Void = feed.refresh()
        try await server.arrived("/race")
        async let fast: Void = feed.refresh()
        _ = await (slow, fast)
        #expect(await feed.snapshot.ids == ["B0", "B1", "B2"])
        #expect(try test.idsOnDisk() == ["B0", "B1", "B2"])
    }

    @Test func cancellingTheTaskCancelsTheRequest() async throws {
        let source = HTTPPageSource<Item>(url: server.url("slow"), convention: .jsonBody(itemsPath: "data.items"))
        let started = Date()
        let task = Task { try await source.fetch(.first) }
        try await server.arrived("/slow")
        task.cancel()
        let result = await task.result
        #expect(throws: (any Error).self) { try result.get() }
        #expect(Date().timeIntervalSince(started) < 2.5, "the request stopped before the server answered")
    }

    @Test func linkHeadersParseRelationsInAnyOrder() {
        let relations = LinkHeader.relations(
            #"<https://api.example/x?page=3>; rel="next", <https://api.example/x?page=1>; title="a, b"; rel="prev first""#
        )
        #expect(relations["next"] == "https://api.example/x?page=3")
        #expect(relations["prev"] == "https://api.example/x?page=1")
        #expect(relations["first"] == "https://api.example/x?page=1")
    }
}
