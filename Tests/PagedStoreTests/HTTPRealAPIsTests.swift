import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The "Real APIs" article's examples, run against loopback servers that answer as
/// GitHub, Mastodon and a JSON-cursor API do, and the article checked against them.
@Suite(.limit(minutes: 3)) struct HTTPRealAPIsTests {
    @Test func everySwiftBlockOfTheArticleIsInTheExamplesFile() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/PagedStore/PagedStore.docc/RealAPIs.md"), encoding: .utf8)
        let examples = try String(
            contentsOf: here.deletingLastPathComponent().appendingPathComponent("HTTPRealAPIsExamples.swift"),
            encoding: .utf8)
        let blocks = article.components(separatedBy: "```swift\n").dropFirst().compactMap {
            $0.components(separatedBy: "\n```").first
        }
        #expect(blocks.count == 9)
        for block in blocks {
            #expect(examples.contains(block), "not in HTTPRealAPIsExamples.swift:\n\(block)")
        }
    }

    @Test func gitHubPagesByLinkSkipsTheOddItemAndHonoursTheRateLimit() async throws {
        let server = try LoopbackServer()
        let test = try FeedTestCase()
        let feed = try test.store().feed(
            "issues", source: gitHubIssues(url: server.url("github/issues"), token: "t"),
            policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        let snapshot = await feed.snapshot
        #expect(snapshot.rows.count == 8, "nine issues, one with a date that is not one")
        #expect(snapshot.rows[0]?.createdAt == ISO8601DateFormatter().date(from: "2024-01-01T10:00:00Z"))
        #expect(snapshot.nextPage == .endReached)
        #expect(try await server.seen().allSatisfy { $0.authorization == "Bearer t" })

        let limited = try test.store().feed(
            "limited", source: gitHubIssues(url: server.url("github/limited", ["in": "30"]), token: "t"),
            policy: FeedPolicy(refreshOnOpen: .never))
        await limited.refresh()
        guard case .error(let error) = await limited.snapshot.content else {
            Issue.record("expected the error state")
            return
        }
        #expect(describe(error).hasPrefix("Rate limited until"))
        #expect((error.retryAfter ?? 0) > 15)
    }

    @Test func mastodonRetriesA206AndReadsFractionalDates() async throws {
        let server = try LoopbackServer()
        let test = try FeedTestCase()
        let feed = try test.store().feed(
            "home", source: mastodonHome(url: server.url("mastodon/timeline"), token: "t"),
            policy: FeedPolicy(refreshOnOpen: .never))
        await showHome(feed)
        #expect(await feed.snapshot.rows.count == 4)
        await feed.loadNextPage()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == (0..<8).map { String(110000 - $0) })
        #expect(snapshot.nextPage == .endReached)
        let first = try #require(snapshot.rows[0]?.createdAt)
        #expect(abs(first.timeIntervalSince1970.truncatingRemainder(dividingBy: 1)) < 0.001, "59.000")
        let second = try #require(snapshot.rows[1]?.createdAt)
        #expect(abs(second.timeIntervalSince1970.truncatingRemainder(dividingBy: 1) - 0.007) < 0.001)
    }

    @Test func aJSONCursorAPIPagesToTheEnd() async throws {
        let server = try LoopbackServer()
        let test = try FeedTestCase()
        let feed = try test.store().feed(
            "posts", source: cursorPosts(url: server.url("cursor/posts")), policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        let snapshot = await feed.snapshot
        #expect(snapshot.ids == (0..<7).map { "p\($0)" })
        #expect(snapshot.nextPage == .endReached)
    }

    @Test func theAppsNetworkSettingsReachTheServer() async throws {
        let server = try LoopbackServer()
        let test = try FeedTestCase()
        let feed = try test.store().feed(
            "posts", source: cursorPostsOffCellular(url: server.url("cursor/posts")),
            policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        #expect(await feed.snapshot.ids.first == "p0")
        #expect(try await server.seen().map(\.userAgent) == ["ExampleApp/1.0"])
    }

    @Test func describeTellsTheFailuresApart() {
        #expect(
            describe(FeedError(HTTPSourceError.status(code: 401, retryAfter: nil, rateLimitReset: nil)))
                == "Sign in again.")
        #expect(describe(FeedError(HTTPSourceError.transport("x"))) == "The server is busy; retrying soon.")
        #expect(describe(FeedError(HTTPSourceError.responseTooLarge(limit: 1))).contains("larger than the limit"))
    }
}
