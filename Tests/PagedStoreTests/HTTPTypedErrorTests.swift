import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// A feed's error keeps the HTTP failure whole, and `retry()` honours rate limits.
@Suite(.limit(minutes: 3)) struct HTTPTypedErrorTests {
    struct Item: FeedItem, Codable, Equatable {
        let id: String
    }

    func failure(_ url: URL, convention: HTTPPageSource<Item>.Convention = .linkHeader) async throws -> FeedError? {
        let test = try FeedTestCase()
        let source = HTTPPageSource<Item>(url: url, convention: convention)
        let feed = try test.store().feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        guard case .error(let error) = await feed.snapshot.content else { return nil }
        return error
    }

    @Test func anAppTellsA401FromA503WithoutParsingText() async throws {
        let server = try LoopbackServer()
        let unauthorized = try #require(try await failure(server.url("header", ["status": "401"])))
        #expect(unauthorized.httpStatus == 401)
        #expect(unauthorized.httpError?.isRetryable == false)
        let busy = try #require(try await failure(server.url("header", ["status": "503"])))
        #expect(busy.httpError == .status(code: 503, retryAfter: nil, rateLimitReset: nil))
        #expect(busy.httpError?.isRetryable == true)
    }

    @Test func transportAndDecodingFailuresAreTold() async throws {
        let server = try LoopbackServer()
        // Port 9 on loopback (discard) has no listener here: the connection is refused.
        let refused = try #require(try await failure(URL(string: "http://127.0.0.1:9/x") ?? server.base))
        #expect(refused.httpError?.isTransport == true)
        #expect(refused.httpError?.isDecoding == false)
        let bad = try #require(try await failure(server.url("bad"), convention: .jsonBody(itemsPath: "data.items")))
        #expect(bad.httpError?.isDecoding == true)
        #expect(bad.httpStatus == nil)
    }

    @Test func gitHubsRateLimitIsA403WithAResetThatRetryWaitsOut() async throws {
        let server = try LoopbackServer()
        let test = try FeedTestCase()
        let source = HTTPPageSource<Item>(url: server.url("github/limited"), convention: .linkHeader)
        let feed = try test.store().feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        // The wait counts from the failure, which is after this and before `retry()` is called: a
        // loaded machine may take any time between the two, so the bound is taken from here.
        let beforeTheFailure = Date()
        await feed.refresh()
        guard case .error(let error) = await feed.snapshot.content else {
            Issue.record("expected the error state")
            return
        }
        guard case .status(403, let serverWait, let reset?)? = error.httpError else {
            Issue.record("expected a 403 with a reset: \(error)")
            return
        }
        // The reset is two seconds after the server answered: on a loaded machine it may have passed.
        #expect(error.retryAfter == serverWait)
        #expect(reset.timeIntervalSinceNow < 3)
        let wait = serverWait ?? 0
        #expect(error.httpError?.isRetryable == true)
        await feed.retry()
        #expect(Date().timeIntervalSince(beforeTheFailure) >= wait, "retry waited for the rate-limit reset")
    }

    @Test func gitHubsResetIsEpochSeconds() async throws {
        let server = try LoopbackServer()
        let (error, before, after) = await Self.fetchFailing(server.url("github/limited", ["in": "30"]))
        guard case .status(403, let wait?, let reset?)? = error else {
            Issue.record("expected a 403 with a reset: \(String(describing: error))")
            return
        }
        // The server's epoch seconds are whole: its reset is within a second before `in` seconds on.
        #expect(reset >= before.addingTimeInterval(29) && reset <= after.addingTimeInterval(30))
        Self.expect(wait, untilReset: reset, measuredBetween: before, and: after)
    }

    /// One fetch's error, with the times just before and after it, so a check does not depend on how
    /// fast a loaded machine runs.
    static func fetchFailing(_ url: URL) async -> (HTTPSourceError?, Date, Date) {
        let source = HTTPPageSource<Item>(url: url, convention: .linkHeader)
        let before = Date()
        let error = await #expect(throws: HTTPSourceError.self) { try await source.fetch(.first) }
        return (error, before, Date())
    }

    /// The wait is the time from the error to the reset, measured somewhere in the fetch.
    static func expect(_ wait: Double, untilReset reset: Date, measuredBetween before: Date, and after: Date) {
        let earliest = max(reset.timeIntervalSince(after), 0) - 0.01
        let latest = max(reset.timeIntervalSince(before), 0) + 0.01
        #expect(wait >= earliest && wait <= latest, "\(wait) not in \(earliest)...\(latest)")
    }

    @Test func aGitHub403WithRequestsLeftIsNotARateLimit() async throws {
        let server = try LoopbackServer()
        let url = server.url("header", ["status": "403", "name": "X-RateLimit-Reset", "value": "9999999999"])
        let error = try #require(try await failure(url))
        #expect(error.httpError == .status(code: 403, retryAfter: nil, rateLimitReset: nil))
        #expect(error.httpError?.isRetryable == false)
    }

    @Test func mastodonsRateLimitResetIsAnISO8601DateWithFractions() async throws {
        let server = try LoopbackServer()
        let (error, before, after) = await Self.fetchFailing(server.url("mastodon/limited", ["in": "30"]))
        guard case .status(429, let wait?, let reset?)? = error else {
            Issue.record("expected a 429 with a reset: \(String(describing: error))")
            return
        }
        // Milliseconds survive: a whole-second parse would land up to a second early.
        #expect(reset >= before.addingTimeInterval(29.99) && reset <= after.addingTimeInterval(30.01))
        Self.expect(wait, untilReset: reset, measuredBetween: before, and: after)
    }

    @Test func aRateLimitResetIsClampedLikeRetryAfter() {
        let now = Date()
        let far = RetryAfter.seconds(
            status: 429, headers: { ["X-RateLimit-Reset": "99999999999", "Retry-After": "5"][$0] }, now: now,
            maximum: 3600)
        #expect(far.seconds == 3600)
        let both = RetryAfter.seconds(
            status: 429, headers: { ["X-RateLimit-Reset": "3", "Retry-After": "5"][$0] }, now: now, maximum: 3600)
        #expect(both.seconds == 5)
    }
}
