import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// 10,000 responses with random `Retry-After`, `Link`, `Content-Length`, `Content-Encoding`
/// and `X-RateLimit-Reset` values (some not even text) and random statuses: every one ends as a page or
/// a typed error, none crashes or hangs. `PAGEDSTORE_FUZZ_COUNT` changes the count.
@Suite(.limit(minutes: 15)) struct HTTPHeaderFuzzTests {
    struct Item: FeedItem, Codable, Equatable {
        let id: String
    }

    static let count = ProcessInfo.processInfo.environment["PAGEDSTORE_FUZZ_COUNT"].flatMap { Int($0) } ?? 10_000

    @Test func randomHeadersNeverCrashOrHang() async throws {
        let server = try LoopbackServer()
        let options = HTTPSourceOptions(requestDeadline: 10, idleTimeout: 5)
        let source = HTTPPageSource<Item>(url: server.url("fuzz"), convention: .linkHeader, options: options)
        let outcomes = try await withThrowingTaskGroup(of: FuzzOutcome.self) { group in
            var outcomes = FuzzOutcome()
            var next = 0
            // Eight requests in flight: the server is one Python process on a small machine.
            for seed in 0..<min(8, Self.count) {
                group.addTask { await Self.fetch(source, seed: seed) }
                next += 1
            }
            for try await outcome in group {
                outcomes.add(outcome)
                if next < Self.count {
                    let seed = next
                    group.addTask { await Self.fetch(source, seed: seed) }
                    next += 1
                }
            }
            return outcomes
        }
        #expect(outcomes.total == Self.count)
        #expect(outcomes.pages > 0 && outcomes.statuses > 0 && outcomes.refused + outcomes.other > 0)
        print(
            "header fuzz: \(outcomes.total) responses, \(outcomes.pages) pages, \(outcomes.statuses) statuses, "
                + "\(outcomes.transport) transport, \(outcomes.decoding) decoding, \(outcomes.refused) refused Links, "
                + "\(outcomes.other) other")
    }

    /// One fuzzed exchange, then the Link it returned, if any, is checked as a next request would be.
    static func fetch(_ source: HTTPPageSource<Item>, seed: Int) async -> FuzzOutcome {
        do {
            let page = try await source.fetch(.olderThan(cursor: "/fuzz?seed=\(seed)"))
            var outcome = FuzzOutcome(pages: 1)
            if let cursor = page.olderCursor {
                do { _ = try source.requestURL(for: .olderThan(cursor: cursor)) } catch { outcome.refused += 1 }
            }
            return outcome
        } catch let error as HTTPSourceError {
            _ = error.description  // a description must never trap, whatever the values
            switch error {
            case .status: return FuzzOutcome(statuses: 1)
            case .transport, .deadlineExceeded: return FuzzOutcome(transport: 1)
            case .invalidResponse: return FuzzOutcome(decoding: 1)
            default: return FuzzOutcome(other: 1)
            }
        } catch {
            return FuzzOutcome(other: 1)
        }
    }

    @Test func theHeaderParsersTakeAnyText() {
        var generator = SystemRandomNumberGenerator()
        let alphabet =
            Array(#"<>;,="\ abcdefrelnxtp:/.0123456789eEinfa-+GMTSunNov"#) + ["\t", "\u{0}", "é", "\u{FFFF}"]
        var outOfRange: [String] = []
        for _ in 0..<Self.count {
            let text = String(
                (0..<Int.random(in: 0...60, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator) ?? " "
                })
            _ = RetryAfter.retryAfterSeconds(text, now: Date())
            _ = RetryAfter.resetDate(text, now: Date())
            _ = LinkHeader.relations(text)
            let wait = RetryAfter.seconds(status: 429, headers: { _ in text }, maximum: 3600)
            if let seconds = wait.seconds, !(0...3600).contains(seconds) { outOfRange.append(text) }
        }
        #expect(outOfRange.isEmpty)
    }
}

/// Counts of how fuzzed exchanges ended.
struct FuzzOutcome: Sendable {
    var pages = 0
    var statuses = 0
    var transport = 0
    var decoding = 0
    var refused = 0
    var other = 0

    var total: Int { pages + statuses + transport + decoding + other }

    mutating func add(_ outcome: FuzzOutcome) {
        pages += outcome.pages
        statuses += outcome.statuses
        transport += outcome.transport
        decoding += outcome.decoding
        refused += outcome.refused
        other += outcome.other
    }
}
