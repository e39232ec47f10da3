import Foundation
import TestSupport
import Testing

@testable import PagedStore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The source's headers go only to the origin they were configured for.
@Suite(.limit(minutes: 3)) struct HTTPCredentialTests {
    struct Item: FeedItem, Codable, Equatable {
        let id: String
    }

    static let secret = "Bearer SECRET-TOKEN-1"

    func source(_ url: URL, options: HTTPSourceOptions = .init()) -> HTTPPageSource<Item> {
        HTTPPageSource<Item>(
            url: url, convention: .linkHeader, headers: ["Authorization": Self.secret], options: options)
    }

    @Test func aRedirectToAnotherPortGoesWithoutTheHeaders() async throws {
        let home = try LoopbackServer()
        let other = try LoopbackServer()
        let events = Locked<[HTTPSourceEvent]>([])
        let source = source(
            home.url("redirect", ["to": other.url("link").absoluteString]),
            options: HTTPSourceOptions(onEvent: { events.append($0) }))
        let page = try await source.fetch(.first)
        #expect(page.items.count == 10)
        #expect(try await home.seen().map(\.authorization) == [Self.secret])
        #expect(try await other.seen().map(\.authorization) == [nil])
        #expect(events.value == [.headersWithheldFromRedirect])
    }

    @Test func localhostIsAnotherOriginThan127001() async throws {
        let server = try LoopbackServer()
        let localhost = "http://localhost:\(server.port)/link"
        _ = try await source(server.url("redirect", ["to": localhost])).fetch(.first)
        let seen = try await server.seen()
        #expect(seen.map(\.path) == ["/redirect", "/link"])
        #expect(seen.map(\.authorization) == [Self.secret, nil])
        #expect(seen.last?.host == "localhost:\(server.port)")
    }

    @Test func aSameOriginRedirectKeepsTheHeaders() async throws {
        let server = try LoopbackServer()
        _ = try await source(server.url("redirect", ["to": "/link"])).fetch(.first)
        #expect(try await server.seen().map(\.authorization) == [Self.secret, Self.secret])
    }

    @Test func headersWithheldOnceStayWithheldWhenTheRedirectsComeBack() async throws {
        let home = try LoopbackServer()
        let other = try LoopbackServer()
        let back = other.url("redirect", ["to": home.url("link").absoluteString])
        _ = try await source(home.url("redirect", ["to": back.absoluteString])).fetch(.first)
        #expect(try await home.seen().map(\.authorization) == [Self.secret, nil])
        #expect(try await other.seen().map(\.authorization) == [nil])
    }

    @Test func aTrustedOriginGetsTheHeaders() async throws {
        let home = try LoopbackServer()
        let other = try LoopbackServer()
        let source = source(
            home.url("redirect", ["to": other.url("link").absoluteString]),
            options: HTTPSourceOptions(trustedOrigins: [other.base]))
        _ = try await source.fetch(.first)
        #expect(try await other.seen().map(\.authorization) == [Self.secret])
    }

    @Test(arguments: ["http://127.0.0.2:{port}/link", "http://localhost:{port}/link", "https://127.0.0.1:{port}/link"])
    func aLinkToAnotherOriginIsRefusedBeforeAnyRequest(target: String) async throws {
        let server = try LoopbackServer()
        let link = target.replacingOccurrences(of: "{port}", with: "\(server.port)")
        let source = source(server.url("linkto", ["target": link]))
        let page = try await source.fetch(.first)
        let cursor = try #require(page.olderCursor)
        await #expect(throws: HTTPSourceError.refused("a Link to another origin")) {
            try await source.fetch(.olderThan(cursor: cursor))
        }
        #expect(try await server.seen().count == 1)
    }

    @Test(arguments: ["file:///etc/passwd", "javascript:alert(1)", "ftp://127.0.0.1/x", "data:,x"])
    func aLinkToANonHTTPSchemeIsNeverFollowed(target: String) async throws {
        let server = try LoopbackServer()
        let source = source(server.url("linkto", ["target": target]))
        let cursor = try #require(try await source.fetch(.first).olderCursor)
        await #expect(throws: HTTPSourceError.refused("a Link to a non-HTTP(S) URL")) {
            try await source.fetch(.olderThan(cursor: cursor))
        }
    }

    @Test func aRedirectToANonHTTPSchemeIsRefused() async throws {
        let server = try LoopbackServer()
        await #expect(throws: HTTPSourceError.self) {
            try await source(server.url("redirect", ["to": "file:///etc/passwd"])).fetch(.first)
        }
    }

    @Test func aRedirectLoopEndsWithATypedError() async throws {
        let server = try LoopbackServer()
        await #expect(throws: HTTPSourceError.refused("more than 5 redirects")) {
            try await source(server.url("loop")).fetch(.first)
        }
        #expect(try await server.seen().count == 6)
    }

    @Test func theRequestHookCannotSendTheHeadersElsewhere() async throws {
        let home = try LoopbackServer()
        let other = try LoopbackServer()
        let options = HTTPSourceOptions(prepareRequest: { request in request.url = other.url("link") })
        await #expect(throws: HTTPSourceError.refused("the request hook pointed the request to another origin")) {
            try await source(home.url("link"), options: options).fetch(.first)
        }
        #expect(try await other.seen().isEmpty)
    }
}
