import Foundation
import TestSupport
import Testing

/// Fixtures as users write them, and the export → seed round trip.
@Suite(.limit(minutes: 3), .plainRunOnly) struct FixtureRoundTripTests {
    @Test func ordersWithLineItemsAreItemsNotPages() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let orders = try scratch.file(
            "orders.json",
            #"[{"id": "o1", "items": [{"id": "l1"}, {"id": "l2"}]}, {"id": "o2", "items": [{"id": "l3"}]}]"#)
        let seeded = try await PagedDBBinary.run(["seed", "orders", "--db", db, "--file", orders])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let rows =
            try PagedDBBinary.json(try await PagedDBBinary.run(["items", "orders", "--db", db, "--json"]))
            as? [[String: Any]]
        #expect(rows?.compactMap { $0["id"] as? String } == ["o1", "o2"])
        // Told explicitly, the same file is read as pages (and its pages have no cursors: fine).
        let asPages = try await PagedDBBinary.run(["seed", "lines", "--db", db, "--file", orders, "--format", "pages"])
        #expect(asPages.status == 0, "\(asPages.stderr)")
    }

    @Test func theSizeLimitIsPerItemNotPerPage() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let filler = String(repeating: "x", count: 30_000)
        let items = (0..<100).map { #"{"id": "i\#($0)", "text": "\#(filler)"}"# }.joined(separator: ",")
        let fixture = try scratch.file("big.json", "[\(items)]")
        #expect(
            try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", fixture, "--page-size", "100"]).status
                == 0)
        let export = try await PagedDBBinary.run(["export", "home", "--db", db, "--format", "pages"])
        let exported = try scratch.file("pages.json", export.stdout)
        let again = try await PagedDBBinary.run([
            "seed", "home", "--db", scratch.path("again.sqlite"), "--file", exported,
        ])
        #expect(again.status == 0, "a 3 MB page of 30 KB items seeds again: \(again.stderr)")
        let response = (0..<50).map { #"{"id": "n\#($0)", "text": "\#(filler)"}"# }.joined(separator: ",")
        let page = try scratch.file("response.json", #"{"items": [\#(response)], "next_cursor": null}"#)
        let applied = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", page, "--as", "refresh"])
        #expect(applied.status == 0, "a 1.5 MB response applies: \(applied.stderr)")
        let tooBig = try scratch.file(
            "huge.json", #"[{"id": "h", "text": "\#(String(repeating: "y", count: 1_100_000))"}]"#)
        #expect(try await PagedDBBinary.run(["seed", "huge", "--db", db, "--file", tooBig]).status == 65)
    }

    @Test(arguments: ["1.0", "1e300", "2.5", "1E2"])
    func nonIntegerIdsAreRefusedWithTheirPlace(_ id: String) async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let fixture = try scratch.file("ids.ndjson", "{\"id\": 1}\n{\"id\": \(id)}\n")
        let result = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", fixture])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("ids.ndjson:2:1"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db), "nothing written")
    }

    @Test func generatedItemsRoundTripByteForByte() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let first = scratch.path("first.sqlite")
        #expect(
            try await PagedDBBinary.run(["seed", "home", "--db", first, "--generate", "120", "--seed", "3"]).status == 0
        )
        for format in ["json", "ndjson", "pages"] {
            let exported = try await PagedDBBinary.run(["export", "home", "--db", first, "--format", format])
            let file = try scratch.file("home.\(format)", exported.stdout)
            let second = scratch.path("second-\(format).sqlite")
            #expect(try await PagedDBBinary.run(["seed", "home", "--db", second, "--file", file]).status == 0)
            let again = try await PagedDBBinary.run(["export", "home", "--db", second, "--format", format])
            #expect(again.stdout == exported.stdout, "\(format): generate → export → seed → export")
        }
    }

    @Test func aPagesExportKeepsThePageThatEndedTheFeed() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let pages = try scratch.file(
            "pages.json", #"[{"items": [{"id": "a"}, {"id": "b"}], "next_cursor": "c1", "previous_cursor": null}]"#)
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", pages]).status == 0)
        let end = try scratch.file("end.json", #"{"items": [], "next_cursor": null}"#)
        let applied = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", end, "--as", "next"])
        #expect(applied.status == 0, "\(applied.stderr)")
        let exported = try await PagedDBBinary.run(["export", "home", "--db", db, "--format", "pages"])
        #expect(exported.stdout.contains(#"], "next_cursor": "c1""#), "the page above keeps its cursor")
        #expect(exported.stdout.contains(#"{"items": ["# + "\n  ], \"next_cursor\": null"), "\(exported.stdout)")
        let file = try scratch.file("export.json", exported.stdout)
        let copy = scratch.path("copy.sqlite")
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", copy, "--file", file]).status == 0)
        let shown =
            try PagedDBBinary.json(try await PagedDBBinary.run(["show", "home", "--db", copy, "--json"]))
            as? [String: Any]
        #expect(shown?["end_reached"] as? Bool == true, "the seeded copy has ended too: \(exported.stdout)")
        #expect(
            try await PagedDBBinary.run(["export", "home", "--db", copy, "--format", "pages"]).stdout == exported.stdout
        )
    }
}
