import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// A refresh is conditional, and a `304` is a successful refresh with nothing new.
@Suite(.limit(minutes: 3)) struct HTTPConditionalRequestTests {
    struct Issue: FeedItem, Codable, Equatable {
        let id: Int
        let title: String
    }

    @Test func aRefreshSendsTheETagAndA304ChangesNothing() async throws {
        let server = try LoopbackServer()
        let test = try FeedTestCase()
        let events = Locked<[HTTPSourceEvent]>([])
        let source = HTTPPageSource<Issue>(
            url: server.url("github/issues"), convention: .linkHeader,
            options: HTTPSourceOptions(onEvent: { events.append($0) }))
        let feed = try test.store().feed("issues", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        await feed.loadNextPage()
        let before = await feed.snapshot
        #expect(before.rows.count == 6)
        await feed.refresh()
        let after = await feed.snapshot
        #expect(after.refresh == .idle)
        #expect(after.ids == before.ids)
        #expect(try test.idsOnDisk(key: "issues") == before.ids)
        #expect(events.value == [.notModified])
        let seen = try await server.seen()
        #expect(seen.map(\.ifNoneMatch) == [nil, nil, #"W/"issues-1""#])
    }

    @Test func lastModifiedGoesBackAsIfModifiedSince() async throws {
        let server = try LoopbackServer()
        let events = Locked<[HTTPSourceEvent]>([])
        let source = HTTPPageSource<Issue.Plain>(
            url: server.url("modified"), convention: .jsonBody(),
            options: HTTPSourceOptions(onEvent: { events.append($0) }))
        let first = try await source.fetch(.first)
        let again = try await source.fetch(.first)
        #expect(again.items == first.items)
        #expect(first.items.map(\.id) == ["m1", "m2"])
        #expect(events.value == [.notModified])
    }

    @Test func aNextPageIsNeverConditional() async throws {
        let server = try LoopbackServer()
        let source = HTTPPageSource<Issue>(url: server.url("github/issues"), convention: .linkHeader)
        let first = try await source.fetch(.first)
        _ = try await source.fetch(.olderThan(cursor: try #require(first.olderCursor)))
        _ = try await source.fetch(.olderThan(cursor: try #require(first.olderCursor)))
        #expect(try await server.seen().map(\.ifNoneMatch) == [nil, nil, nil])
    }

    @Test func a304ToAnUnconditionalRequestIsAnError() async throws {
        let server = try LoopbackServer()
        let source = HTTPPageSource<Issue>(url: server.url("header", ["status": "304"]), convention: .linkHeader)
        await #expect(throws: HTTPSourceError.status(code: 304, retryAfter: nil, rateLimitReset: nil)) {
            try await source.fetch(.first)
        }
    }
}

extension HTTPConditionalRequestTests.Issue {
    /// An item with a string id and nothing else.
    struct Plain: FeedItem, Codable, Equatable {
        let id: String
    }
}
