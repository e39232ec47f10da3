import Foundation
import TestSupport
import Testing

@testable import PagedStore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An app's own `URLSessionConfiguration` (``HTTPSourceOptions/sessionConfiguration``): its
/// choices reach the network, the source's limits and its refusal of a URL cache stay.
@Suite(.serialized, .limit(minutes: 3)) struct HTTPSessionConfigurationTests {
    struct Item: FeedItem, Codable, Equatable {
        let id: String
    }

    static let jsonBody = HTTPPageSource<Item>.Convention.jsonBody(
        itemsPath: "data.items", olderCursorPath: "meta.next_cursor")

    @Test func aURLProtocolInTheAppsConfigurationAnswersTheSource() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubProtocol.self]
        let source = HTTPPageSource<Item>(
            url: try #require(URL(string: "http://127.0.0.1:9/stub?items=3")), convention: Self.jsonBody,
            options: HTTPSourceOptions(sessionConfiguration: configuration))
        let page = try await source.fetch(.first)
        #expect(page.items.map(\.id) == ["s0", "s1", "s2"])
    }

    @Test func theSourcesSizeLimitHoldsForAnswersOfTheAppsProtocol() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubProtocol.self]
        let source = HTTPPageSource<Item>(
            url: try #require(URL(string: "http://127.0.0.1:9/stub?items=500")), convention: Self.jsonBody,
            options: HTTPSourceOptions(maximumResponseBytes: 1000, sessionConfiguration: configuration))
        await #expect(throws: HTTPSourceError.responseTooLarge(limit: 1000)) { try await source.fetch(.first) }
    }

    @Test func theAppsAdditionalHeadersReachTheServerAsTheyWereWhenGiven() async throws {
        let server = try LoopbackServer()
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = ["X-Signed": "by-the-app"]
        let options = HTTPSourceOptions(sessionConfiguration: configuration)
        // The options hold a copy: a change made afterwards is not the app's choice for this source.
        configuration.httpAdditionalHeaders = ["X-Signed": "changed-later"]
        let source = HTTPPageSource<Item>(url: server.url("body"), convention: Self.jsonBody, options: options)
        _ = try await source.fetch(.first)
        #expect(try await server.seen().map(\.xSigned) == ["by-the-app"])
        #expect(options.sessionConfiguration?.httpAdditionalHeaders?["X-Signed"] as? String == "by-the-app")
    }

    @Test func theSourcesDeadlineOverridesTheConfigurationsTimeouts() async throws {
        let server = try LoopbackServer()
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForResource = 3600
        configuration.timeoutIntervalForRequest = 3600
        let source = HTTPPageSource<Item>(
            url: server.url("drip", ["every": "0.2"]), convention: .linkHeader,
            options: HTTPSourceOptions(requestDeadline: 1, sessionConfiguration: configuration))
        await #expect(throws: HTTPSourceError.deadlineExceeded(seconds: 1)) { try await source.fetch(.first) }
    }

    // FoundationNetworking has no background configurations.
    #if canImport(Darwin)
    @Test func aBackgroundConfigurationGivesWayToTheSourcesOwn() async throws {
        let server = try LoopbackServer()
        let configuration = URLSessionConfiguration.background(withIdentifier: "PagedStoreTests.background")
        configuration.httpAdditionalHeaders = ["X-Signed": "background"]
        let source = HTTPPageSource<Item>(
            url: server.url("body"), convention: Self.jsonBody,
            options: HTTPSourceOptions(sessionConfiguration: configuration))
        #expect(try await source.fetch(.first).items.count == 10)
        #expect(try await server.seen().map(\.xSigned) == [nil], "none of its settings applied")
    }
    #endif

    @Test func aURLCacheInTheAppsConfigurationIsNotUsed() async throws {
        let server = try LoopbackServer()
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        configuration.requestCachePolicy = .returnCacheDataElseLoad
        let source = HTTPPageSource<Item>(
            url: server.url("header", ["name": "Cache-Control", "value": "max-age=3600"]), convention: .linkHeader,
            options: HTTPSourceOptions(sessionConfiguration: configuration))
        _ = try await source.fetch(.first)
        _ = try await source.fetch(.first)
        #expect(try await server.seen().filter { $0.path == "/header" }.count == 2, "both fetches reach the server")
    }
}

/// A `URLProtocol` an app installs in its tests: answers `?items=N` with a page of N items, in the
/// shape of the loopback server's `/body`, without a network.
final class StubProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { request.url?.path == "/stub" }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url,
            let response = HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])
        else { return }
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems
        let count = query?.first { $0.name == "items" }?.value.flatMap(Int.init) ?? 0
        let items = (0..<count).map { #"{"id":"s\#($0)"}"# }.joined(separator: ",")
        let body = #"{"data":{"items":[\#(items)]},"meta":{"next_cursor":null}}"#
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data(body.utf8))
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}
