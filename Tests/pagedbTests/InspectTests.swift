import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// `feeds`, `show`, `items`, `verify`, and the rules every command follows.
@Suite(.limit(minutes: 3), .plainRunOnly) struct InspectTests {
    let scratch: TemporaryDirectory
    let db: String

    init() async throws {
        scratch = try TemporaryDirectory(prefix: "pagedbTests")
        db = scratch.path("cache.sqlite")
        let fixture = try scratch.file(
            "f.json", #"[{"id":"a","t":"\u001b[31mred\u001b[0m"},{"id":"\u001b]0;pwned\u0007b"},{"id":"c"},{"id":"d"}]"#
        )
        _ = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", fixture, "--page-size", "2"])
    }

    @Test func readOnlyCommandsLeaveTheFilesByteIdentical() async throws {
        let before = scratch.fingerprint(db)
        for arguments in [
            ["feeds"], ["show", "home"], ["items", "home"], ["export", "home"], ["verify"], ["schema"],
        ] {
            let result = try await PagedDBBinary.run(arguments + ["--db", db])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(scratch.fingerprint(db) == before, "\(arguments) changed the files")
        }
    }

    @Test func feedsListsRowsPagesAndStateAsJSON() async throws {
        let result = try await PagedDBBinary.run(["feeds", "--db", db, "--json"])
        let feeds = try #require(try PagedDBBinary.json(result) as? [[String: Any]])
        #expect(feeds.count == 1)
        #expect(feeds[0]["key"] as? String == "home")
        #expect(feeds[0]["rows"] as? Int == 4)
        #expect(feeds[0]["pages"] as? Int == 2)
        #expect(feeds[0]["state"] as? String == "content")
        #expect(feeds[0]["end_reached"] as? Bool == true)
    }

    @Test func tablesEscapeControlCharactersFromPayloads() async throws {
        let result = try await PagedDBBinary.run(["items", "home", "--db", db])
        #expect(!result.stdout.contains("\u{1B}"))
        #expect(!result.stdout.contains("\u{07}"))
        #expect(result.stdout.contains("\\u{1b}]0;pwned\\u{7}b"), "an id that would retitle the terminal is escaped")
        let json = try await PagedDBBinary.run(["items", "home", "--db", db, "--json"])
        let rows = try #require(try PagedDBBinary.json(json) as? [[String: Any]])
        #expect(rows.map { $0["row"] as? Int } == [0, 1, 2, 3])
        #expect((rows[0]["payload"] as? [String: Any])?["t"] as? String == "\u{1B}[31mred\u{1B}[0m")
    }

    @Test func verifyIsCleanThenNamesAnInvariantBrokenByHand() async throws {
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
        do {
            let connection = try Connection(path: db, mode: .readWrite)
            try connection.execute("UPDATE feed SET row_count = 99 WHERE key = 'home'")
            try connection.execute("UPDATE page SET row_count = 7 WHERE page_no = 0")
        }
        let result = try await PagedDBBinary.run(["verify", "--db", db])
        #expect(result.status == 1)
        #expect(result.stdout.contains("row_count: the feed records 99 rows but has 4"))
        #expect(result.stdout.contains("page_row_count: page 0 records 7 rows"))
    }

    @Test func mistakesAreOneLineWithTheirOwnExitStatus() async throws {
        for command in [["feeds"], ["trim", "home", "--max-rows", "1"], ["delete", "home"]] {
            let missing = try await PagedDBBinary.run(command + ["--db", scratch.path("nope.sqlite")])
            #expect(missing.status == 66, "\(command[0])")
            #expect(missing.stderr.contains("nope.sqlite"))
            #expect(
                !FileManager.default.fileExists(atPath: scratch.path("nope.sqlite")), "\(command[0]) created the file")
        }

        let noDatabase = try await PagedDBBinary.run(["feeds"])
        #expect(noDatabase.status == 64)
        #expect(noDatabase.stderr.contains("PAGEDB_DATABASE"))
        #expect(try await PagedDBBinary.run(["feeds"], environment: ["PAGEDB_DATABASE": db]).status == 0)

        let unknown = try await PagedDBBinary.run(["show", "nothing", "--db", db])
        #expect(unknown.status == 4)
        #expect(unknown.stderr.contains("No feed \"nothing\""))

        let picture = try scratch.file("picture.png", "\u{89}PNG\r\n\u{1A}\n" + String(repeating: "z", count: 3000))
        let notDatabase = try await PagedDBBinary.run(["feeds", "--db", picture])
        #expect(notDatabase.status == 2)
        #expect(notDatabase.stderr.contains("not a database"))

        let uri = try await PagedDBBinary.run(["feeds", "--db", "file:\(db)?nolock=1"])
        #expect(uri.status == 64)

        do {
            let connection = try Connection(path: db, mode: .readWrite)
            try connection.execute("PRAGMA user_version = 42")
        }
        let newer = try await PagedDBBinary.run(["feeds", "--db", db])
        #expect(newer.status == 3)
        #expect(newer.stderr.contains("newer than this PagedStore"))
    }

    @Test func everyCommandsHelpHasAnAbstractAndAnExample() async throws {
        for command in [
            "demo", "feeds", "show", "items", "seed", "export", "apply", "verify", "trim", "delete", "migrate",
            "schema",
        ] {
            let help = try await PagedDBBinary.run([command, "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("OVERVIEW:"), "\(command)")
            #expect(help.stdout.contains("pagedb \(command)"), "\(command) --help shows an example")
        }
    }

    @Test func trimAndDeleteChangeTheFeed() async throws {
        #expect(
            try await PagedDBBinary.run(["trim", "home", "--db", db, "--max-rows", "3"]).stdout.contains(
                "Removed 2 rows"))
        let show =
            try PagedDBBinary.json(try await PagedDBBinary.run(["show", "home", "--db", db, "--json"]))
            as? [String: Any]
        #expect(show?["rows"] as? Int == 2)
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
        #expect(try await PagedDBBinary.run(["delete", "home", "--db", db]).status == 0)
        #expect(try await PagedDBBinary.run(["show", "home", "--db", db]).status == 4)
    }

    @Test func showListsPendingEdits() async throws {
        let queue = try DatabaseQueue(path: db)
        try queue.write { store in
            guard let feed = try store.feed(key: "home") else { return }
            try store.savePendingEdit(
                PendingEditRecord(
                    itemID: "c", kind: .remove, base: Data(#"{"id":"c"}"#.utf8), baseSection: nil, edited: nil,
                    above: "\u{1b}]0;pwned\u{07}b", below: "d", createdAt: Date()),
                in: feed)
        }
        let text = try await PagedDBBinary.run(["show", "home", "--db", db])
        #expect(text.stdout.contains("Pending edits (waiting for their server call):\n  remove c, "))
        let show =
            try PagedDBBinary.json(try await PagedDBBinary.run(["show", "home", "--db", db, "--json"]))
            as? [String: Any]
        let edits = show?["pending_edits"] as? [[String: Any]]
        #expect(edits?.first?["item_id"] as? String == "c")
        #expect(edits?.first?["kind"] as? String == "remove")
    }
}
