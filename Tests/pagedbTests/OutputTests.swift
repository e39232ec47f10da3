import Foundation
import TestSupport
import Testing

/// What `pagedb` prints: cursors that can be told apart, escaped bidi controls,
/// exported payloads that stay JSON, exit 66 for a missing file, one-line usage errors.
@Suite(.limit(minutes: 3), .plainRunOnly) struct OutputTests {
    @Test func urlCursorsAreShortenedInTheMiddleAndWholeWithWide() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let base = "http://127.0.0.1:43127/api/v1/timeline?limit=50&max_id="
        let pages = try scratch.file(
            "pages.json",
            #"[{"items": [{"id": "a"}], "next_cursor": "\#(base)1111", "previous_cursor": null},"#
                + #" {"items": [{"id": "b"}], "next_cursor": "\#(base)2222", "previous_cursor": null}]"#)
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", pages]).status == 0)
        let shown = try await PagedDBBinary.run(["show", "home", "--db", db])
        #expect(shown.stdout.contains("1111") && shown.stdout.contains("2222"), "\(shown.stdout)")
        let wide = try await PagedDBBinary.run(["show", "home", "--db", db, "--wide"])
        #expect(wide.stdout.contains(base + "2222"), "\(wide.stdout)")
        let feeds = try await PagedDBBinary.run(["feeds", "--db", db])
        #expect(feeds.stdout.contains("2222"), "\(feeds.stdout)")
    }

    @Test func bidiControlsAreEscapedInTables() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        #expect(
            try await PagedDBBinary.run(["seed", "evil\u{202E}fdp.exe", "--db", db, "--generate", "1"]).status == 0)
        let feeds = try await PagedDBBinary.run(["feeds", "--db", db])
        #expect(!feeds.stdout.contains("\u{202E}") && feeds.stdout.contains("\\u{202e}"), "\(feeds.stdout)")
    }

    @Test func exportEscapesControlBytesOfPayloadsThatAreNotJSON() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--generate", "2"]).status == 0)
        let edit = ChildProcess()
        edit.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        edit.arguments = [
            "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                + "c.execute(\"UPDATE item SET payload = 'raw \\x1b]0;pwned\\x07 bytes' WHERE rowid = 1\"); c.commit()",
            db,
        ]
        try edit.start()
        await edit.ended()
        #expect(edit.terminationStatus == 0)
        for format in ["json", "ndjson", "pages"] {
            let exported = try await PagedDBBinary.run(["export", "home", "--db", db, "--format", format])
            #expect(exported.status == 0)
            #expect(!exported.stdout.contains("\u{1B}"), "\(format): no raw escape byte")
            if format != "ndjson" {
                #expect((try? PagedDBBinary.json(exported)) != nil, "\(format): still JSON")
            }
        }
    }

    @Test func aMissingFixtureIsExit66AndUsageErrorsAreOneLine() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let missing = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", scratch.path("nope.json")])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
        let usage = try await PagedDBBinary.run(["seed", "home", "--db", db])
        #expect(usage.status == 64)
        #expect(usage.stderr.split(separator: "\n").count == 1, "\(usage.stderr)")
        #expect(usage.stderr.hasPrefix("pagedb: error: "), "\(usage.stderr)")
    }
}
