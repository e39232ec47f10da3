import Foundation
import TestSupport
import Testing

@testable import PagedStore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A configured decoder, skipping bad items, and a per-request hook.
@Suite(.limit(minutes: 3)) struct HTTPDecodingTests {
    /// GitHub's issue, with Swift names: the decoder maps snake_case and reads ISO 8601 dates.
    struct Issue: FeedItem, Codable, Equatable {
        let id: Int
        let number: Int
        let title: String
        let createdAt: Date
    }

    static var gitHubDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    @Test func aConfiguredDecoderReadsSnakeCaseAndDates() async throws {
        let server = try LoopbackServer()
        let source = HTTPPageSource<Issue>(
            url: server.url("github/issues", ["page": "2"]), convention: .linkHeader, decoder: Self.gitHubDecoder)
        let page = try await source.fetch(.first)
        #expect(page.items.map(\.number) == [3, 4, 5])
        #expect(page.items[0].createdAt == ISO8601DateFormatter().date(from: "2024-01-04T10:00:00Z"))
    }

    @Test func oneBadItemFailsThePageByDefaultNamingIt() async throws {
        let server = try LoopbackServer()
        let source = HTTPPageSource<Issue>(
            url: server.url("github/issues"), convention: .linkHeader, decoder: Self.gitHubDecoder)
        let error = await #expect(throws: HTTPSourceError.self) { try await source.fetch(.first) }
        let message = error?.description ?? ""
        #expect(message.contains("item 1 does not decode") && message.contains("ISO8601"), "\(message)")
        #expect(error?.description.contains("yesterday") == false)
    }

    @Test func skippingBadItemsKeepsTheRestAndReportsTheCount() async throws {
        let server = try LoopbackServer()
        let test = try FeedTestCase()
        let events = Locked<[HTTPSourceEvent]>([])
        let source = HTTPPageSource<Issue>(
            url: server.url("github/issues"), convention: .linkHeader, decoder: Self.gitHubDecoder,
            options: HTTPSourceOptions(skipUndecodableItems: true, onEvent: { events.append($0) }))
        let feed = try test.store().feed("issues", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        #expect(await feed.snapshot.rows.count == 2)
        #expect(events.value == [.skippedItems(request: .first, count: 1)])
        // The cache keeps the model, encoded by the feed's codec: it round-trips whatever the server's keys.
        let reopened = try test.store().feed("issues", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        #expect(await reopened.snapshot.rows[0]?.createdAt == ISO8601DateFormatter().date(from: "2024-01-01T10:00:00Z"))
    }

    @Test func theRequestHookSignsEveryRequestAndMayFail() async throws {
        let server = try LoopbackServer()
        let counter = Locked(0)
        let options = HTTPSourceOptions(prepareRequest: { request in
            try await Task.sleep(for: .milliseconds(10))
            request.setValue("sig-\(counter.increment())", forHTTPHeaderField: "X-Signed")
        })
        let source = HTTPPageSource<Issue>(
            url: server.url("github/issues", ["page": "2"]), convention: .linkHeader, decoder: Self.gitHubDecoder,
            options: options)
        let page = try await source.fetch(.first)
        _ = try await source.fetch(.olderThan(cursor: try #require(page.olderCursor)))
        #expect(try await server.seen().map(\.xSigned) == ["sig-1", "sig-2"])

        struct TokenExpired: Error, Equatable {}
        let failing = HTTPPageSource<Issue>(
            url: server.url("github/issues"), convention: .linkHeader,
            options: HTTPSourceOptions(prepareRequest: { _ in throw TokenExpired() }))
        await #expect(throws: TokenExpired()) { try await failing.fetch(.first) }
        #expect(try await server.seen().count == 2, "a failed hook sends nothing")
    }
}
