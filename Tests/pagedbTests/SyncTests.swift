import Foundation
import TestSupport
import Testing

/// `pagedb sync` against a real server on loopback.
@Suite(.limit(minutes: 3)) struct SyncTests {
    @Test func syncFetchesPagesThenRefreshes() async throws {
        let server = try LoopbackServer()
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("sync.sqlite")
        let arguments = [
            "sync", "home", "--db", db, "--url", server.url("body").absoluteString, "--items-path", "data.items",
            "--next-path", "meta.next_cursor", "--pages", "2",
        ]
        let first = try await PagedDBBinary.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Fetched 2 pages into home."))
        #expect(first.stdout.contains("20 rows"))
        let again = try await PagedDBBinary.run(arguments)
        #expect(again.status == 0)
        #expect(again.stdout.contains("Refreshed home:"))
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)

        let link = try await PagedDBBinary.run([
            "sync", "t", "--db", db, "--url", server.url("link").absoluteString, "--link-header", "--pages", "3",
        ])
        #expect(link.stdout.contains("25 rows"), "\(link.stdout)\(link.stderr)")

        let down = try await PagedDBBinary.run([
            "sync", "x", "--db", db, "--url", server.url("nothing-here").absoluteString,
        ])
        #expect(down.status == 69)
        #expect(down.stderr.contains("HTTP 404"))
    }

    static let secret = "Bearer SECRET-TOKEN-9"

    @Test func headersGoOnlyToTheOriginAndAreNeverPrinted() async throws {
        let home = try LoopbackServer()
        let other = try LoopbackServer()
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let url = home.url("redirect", ["to": other.url("link").absoluteString])
        let run = try await PagedDBBinary.run([
            "sync", "t", "--db", scratch.path("s.sqlite"), "--url", url.absoluteString, "--link-header",
            "--header", "Authorization: \(Self.secret)", "--header", "X-Trace:1", "--gap-policy", "keep-gap",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!(run.stdout + run.stderr).contains("SECRET"))
        #expect(try await home.seen().map(\.authorization) == [Self.secret])
        #expect(try await other.seen().map(\.authorization) == [nil])

        let failing = try await PagedDBBinary.run([
            "sync", "u", "--db", scratch.path("s.sqlite"), "--url",
            home.url("header", ["status": "401"]).absoluteString,
            "--header", "Authorization: \(Self.secret)",
        ])
        #expect(failing.status == 69)
        #expect(failing.stderr.contains("HTTP 401") && !failing.stderr.contains("SECRET"))
    }

    @Test(arguments: ["Authorization \(secret)", "Bad Name: \(secret)", "Authorization: \(secret)\r\nX: y"])
    func aMalformedHeaderIsAUsageErrorThatHidesTheValue(header: String) async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let run = try await PagedDBBinary.run([
            "sync", "t", "--db", scratch.path("s.sqlite"), "--url", "http://127.0.0.1:9/x", "--header", header,
        ])
        #expect(run.status == 64)
        #expect(!(run.stdout + run.stderr).contains("SECRET"), "\(run.stderr)")
    }

    @Test(arguments: ["inf", "nan", "1e300", "-1"])
    func anyRetryAfterIsOneLineAndExitStatus69(value: String) async throws {
        let server = try LoopbackServer()
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let url = server.url("header", ["status": "429", "name": "Retry-After", "value": value])
        let run = try await PagedDBBinary.run([
            "sync", "t", "--db", scratch.path("s.sqlite"), "--url", url.absoluteString,
        ])
        #expect(run.status == 69 && !run.crashed, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(lines.count == 1 && run.stderr.contains("The server answered HTTP 429"), "\(run.stderr)")
        #expect(!run.stderr.contains("retry after"), "an unusable Retry-After is absent")
    }

    @Test func theLimitsAreOptionsWithTheirOwnMessages() async throws {
        let server = try LoopbackServer()
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("s.sqlite")
        let huge = try await PagedDBBinary.run([
            "sync", "t", "--db", db, "--url", server.url("huge", ["bytes": "300000"]).absoluteString,
            "--max-response-bytes", "100000",
        ])
        #expect(huge.status == 69)
        #expect(huge.stderr.contains("larger than the limit of 100000 bytes"), "\(huge.stderr)")
        let drip = try await PagedDBBinary.run([
            "sync", "t", "--db", db, "--url", server.url("drip", ["every": "0.2"]).absoluteString, "--deadline", "1",
        ])
        #expect(drip.status == 69)
        #expect(drip.stderr.contains("did not answer within 1 s"), "\(drip.stderr)")
        let bad = try await PagedDBBinary.run([
            "sync", "t", "--db", db, "--url", "http://127.0.0.1:9/", "--gap-policy", "x",
        ])
        #expect(bad.status == 64)
    }
}

/// The response that ends a feed is recorded as it came, as a page of no rows.
extension SyncTests {
    @Test func theResponseThatEndedTheFeedIsAPageThatShowExportAndASeedKeep() async throws {
        let server = try LoopbackServer()
        try await server.control("mastodon/home/reset", ["count": "60"])
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("sync.sqlite")
        let url = server.url("mastodon/home", ["limit": "20"]).absoluteString
        let sync = try await PagedDBBinary.run([
            "sync", "tag", "--db", db, "--url", url, "--link-header", "--pages", "5",
        ])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(sync.stdout.contains("Fetched 4 pages"), "\(sync.stdout)")
        let pages = try await Self.pages(db: db)
        #expect(pages.map { $0["rows"] as? Int } == [20, 20, 20, 0])
        let third = pages.dropLast().last?["older_cursor"] as? String
        #expect(third?.contains("max_id=") == true, "the third response's rel=\"next\" is kept: \(pages)")
        #expect(pages.last?["request"] as? String == "older")
        #expect(pages.last?["request_cursor"] as? String == third, "asked with the third page's older cursor")
        #expect(pages.last?["older_cursor"] is NSNull, "the fourth response had no rel=\"next\"")
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)

        let exported = try await PagedDBBinary.run(["export", "tag", "--db", db, "--format", "pages"])
        #expect(exported.stdout.contains(#"{"items": ["# + "\n  ], \"next_cursor\": null"), "\(exported.stdout)")
        let copy = scratch.path("copy.sqlite")
        let file = try scratch.file("tag.json", exported.stdout)
        #expect(try await PagedDBBinary.run(["seed", "tag", "--db", copy, "--file", file]).status == 0)
        let seeded = try await Self.pages(db: copy)
        #expect(seeded.map { $0["rows"] as? Int } == [20, 20, 20, 0])
        #expect(seeded.map { $0["older_cursor"] as? String } == pages.map { $0["older_cursor"] as? String })
        #expect(try await PagedDBBinary.run(["verify", "--db", copy]).status == 0)
        #expect(
            try await PagedDBBinary.run(["export", "tag", "--db", copy, "--format", "pages"]).stdout == exported.stdout)
    }

    /// `show --json`'s pages of `feed`, with the feed's end state checked on the way.
    static func pages(db: String, feed: String = "tag") async throws -> [[String: Any]] {
        let shown =
            try PagedDBBinary.json(try await PagedDBBinary.run(["show", feed, "--db", db, "--json"])) as? [String: Any]
        #expect(shown?["end_reached"] as? Bool == true)
        return shown?["pages"] as? [[String: Any]] ?? []
    }
}
