import Foundation
import PagedStore
import PagedStoreFixtures
import TestSupport
import Testing

/// `pagedb seed` and `pagedb export`: round trips, and bad fixtures that change nothing.
@Suite(.limit(minutes: 15), .plainRunOnly) struct SeedExportTests {
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory(prefix: "pagedbTests") }

    static let fixture = """
        [
          {"id": "a", "title": "First", "tags": ["x", "y"]},
          {"id": 2, "title": "Second / slash", "n": 1.5},
          {"id": "c", "title": "Third \\u00e9 🧵"}
        ]
        """

    @Test(arguments: ["json", "ndjson", "pages"])
    func seedExportSeedExportGivesIdenticalOutput(format: String) async throws {
        let first = scratch.path("first.sqlite")
        let second = scratch.path("second.sqlite")
        let fixture = try scratch.file("fixture.json", Self.fixture)
        let seeded = try await PagedDBBinary.run(["seed", "home", "--db", first, "--file", fixture, "--page-size", "2"])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        #expect(seeded.stdout.contains("Seeded 3 items"))
        let exported = try await PagedDBBinary.run(["export", "home", "--db", first, "--format", format])
        #expect(exported.status == 0)
        let reseedFile = try scratch.file("export.\(format)", exported.stdout)
        #expect(
            try await PagedDBBinary.run(["seed", "home", "--db", second, "--file", reseedFile, "--page-size", "2"])
                .status
                == 0)
        let again = try await PagedDBBinary.run(["export", "home", "--db", second, "--format", format])
        #expect(again.stdout == exported.stdout)
        #expect(exported.stdout.contains("\"id\":\"a\""))
        if format == "pages" {
            let pages = try #require(try PagedDBBinary.json(exported) as? [[String: Any]])
            #expect(pages.map { ($0["items"] as? [Any])?.count } == [2, 1])
        }
    }

    @Test func generatedSeedsAreDeterministic() async throws {
        let a = scratch.path("a.sqlite")
        let b = scratch.path("b.sqlite")
        for path in [a, b] {
            #expect(
                try await PagedDBBinary.run(["seed", "bench", "--db", path, "--generate", "120", "--seed", "7"]).status
                    == 0)
        }
        let exportA = try await PagedDBBinary.run(["export", "bench", "--db", a, "--format", "pages"]).stdout
        #expect(exportA == (try await PagedDBBinary.run(["export", "bench", "--db", b, "--format", "pages"]).stdout))
        #expect(exportA.components(separatedBy: "\"title\":\"Post #").count == 121)
    }

    @Test(arguments: [
        ("truncated.json", "[\n  {\"id\": \"a\"},\n  {\"id\": \"b\"", ":3:", "truncated"),
        ("noid.json", "[\n  {\"id\": \"a\"},\n  {\"title\": \"no id\"}\n]", ":3:3:", "has no \"id\""),
        ("dupes.ndjson", "{\"id\": 1}\n{\"id\": 2}\n{\"id\": 1}\n", ":3:1:", "duplicate id"),
        ("badline.ndjson", "{\"id\": 1}\n{\"id\": 2,,}\n", ":2:", "invalid JSON"),
    ])
    func aBadFixtureNamesItsPlaceAndWritesNothing(
        name: String, text: String, place: String, reason: String
    ) async throws {
        let db = scratch.path("cache.sqlite")
        let good = try scratch.file("good.json", Self.fixture)
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", good]).status == 0)
        let before = scratch.fingerprint(db)
        let file = try scratch.file(name, text)
        let result = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", file])
        #expect(result.status == 65)
        #expect(result.stderr.contains(name + place), "\(result.stderr)")
        #expect(result.stderr.contains(reason), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line, no stack trace")
        #expect(scratch.fingerprint(db) == before)
    }

    /// Repeats are found while writing: also an id the feed had before the seed, which the first line
    /// with it skips and the second must not.
    @Test func anIdTheFeedHadIsARepeatOnItsSecondLine() async throws {
        let db = scratch.path("cache.sqlite")
        let first = try scratch.file("first.ndjson", "{\"id\": \"a\"}\n{\"id\": \"b\"}\n")
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", first]).status == 0)
        let before = scratch.fingerprint(db)
        let again = try scratch.file("again.ndjson", "{\"id\": \"c\"}\n{\"id\": \"a\"}\n{\"id\": \"a\"}\n")
        let result = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", again])
        #expect(result.status == 65)
        #expect(result.stderr.contains("again.ndjson:3:1:"), "\(result.stderr)")
        #expect(result.stderr.contains("duplicate id"), "\(result.stderr)")
        #expect(scratch.fingerprint(db) == before)
        let overlap = try scratch.file("overlap.ndjson", "{\"id\": \"b\"}\n{\"id\": \"c\"}\n")
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", overlap]).status == 0)
    }

    /// NDJSON of `count` canonical items whose ids are in no order, as a server's are.
    func unorderedFixture(_ name: String, count: Int, repeating: (line: Int, ofLine: Int)? = nil) throws -> String {
        let lines = (0..<count).map { index in
            let key = repeating.map { index + 1 == $0.line ? $0.ofLine - 1 : index } ?? index
            return #"{"id":"x\#(key * 7919 % 60013)","n":\#(index)}"#
        }
        return try scratch.file(name, lines.joined(separator: "\n") + "\n")
    }

    /// Enough items into an empty feed take the bulk path (staged, written in id order, position
    /// index rebuilt): the feed must read back exactly as the fixture, in the file's order and pages.
    @Test func aBulkSeedKeepsTheFilesOrderAndPages() async throws {
        let db = scratch.path("cache.sqlite")
        let count = 60_000
        let file = try unorderedFixture("bulk.ndjson", count: count)
        let seeded = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", file])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let exported = try await PagedDBBinary.run(["export", "home", "--db", db, "--format", "ndjson"])
        #expect(exported.stdout == (try String(contentsOfFile: file, encoding: .utf8)))
        let pages = try await PagedDBBinary.run(["export", "home", "--db", db, "--format", "pages"])
        #expect((try PagedDBBinary.json(pages) as? [Any])?.count == count / 50)
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }

    /// A bulk seed finds repeats only at its end: the first repeating line is still named, and
    /// nothing is written.
    @Test func aBulkSeedNamesTheFirstRepeatedLine() async throws {
        let db = scratch.path("cache.sqlite")
        let other = try scratch.file("other.ndjson", "{\"id\": \"a\"}\n")
        #expect(try await PagedDBBinary.run(["seed", "other", "--db", db, "--file", other]).status == 0)
        let before = scratch.fingerprint(db)
        let file = try unorderedFixture("repeat.ndjson", count: 60_000, repeating: (line: 55_001, ofLine: 10))
        let result = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", file])
        #expect(result.status == 65)
        #expect(result.stderr.contains("repeat.ndjson:55001:1:"), "\(result.stderr)")
        #expect(result.stderr.contains("duplicate id \"x\(9 * 7919 % 60013)\""), "\(result.stderr)")
        #expect(scratch.fingerprint(db) == before)
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }

    /// A bulk seed stages its rows and sorts them in SQLite's temporary folder, not beside the cache
    /// file: when that folder is full the error must say so (SQLite's own "database or disk is full"
    /// sends the reader to the cache file's disk), and nothing is written. The full folder is a
    /// temporary database of 20 pages (`PRAGMA temp.max_page_count`), as DiskFullTests does for the file.
    @Test func aFullTemporaryFolderIsNamedAndNothingIsWritten() throws {
        let db = scratch.path("cache.sqlite")
        let queue = try DatabaseQueue(path: db)
        let items = (0..<PageStore.bulkSeedMinimum).map { index in
            FixtureItem(id: "x\(index * 7919 % 60013)", section: nil, json: Data(#"{"n":\#(index)}"#.utf8))
        }
        let error = #expect(throws: StorageError.self) {
            try queue.write { store in
                try store.connection.execute("PRAGMA temp.max_page_count = 20")
                var run = try store.beginSeed(into: "home", expectedItems: items.count)
                for start in stride(from: 0, to: items.count, by: 50) {
                    let page = FixturePage(items: Array(items[start..<start + 50]), olderCursor: nil, newerCursor: nil)
                    try store.seed(page, offsets: Array(repeating: 0, count: 50), &run)
                }
                return try store.finishSeed(&run)
            }
        }
        #expect(error?.kind == .storageFull)
        #expect(
            error?.message.contains("SQLite's temporary folder (SQLITE_TMPDIR") == true, "\(String(describing: error))")
        #expect(try queue.read { try $0.feed(key: "home") } == nil, "nothing was written")
        #expect(try queue.read { try $0.verify() }.isEmpty)
    }

    /// On a terminal, a bulk seed's last step (the sorted insert and the index rebuild, about a fifth
    /// of the seed, with no count of its own) is named, so the line does not sit at its last count,
    /// short of 100 %, until the seed ends. stderr is a real pseudo-terminal here.
    @Test func aBulkSeedNamesItsLastStepOnATerminal() async throws {
        let db = scratch.path("cache.sqlite")
        let count = 150_000
        let lines = (0..<count).map { #"{"id":"k\#(count - $0)","n":\#($0)}"# }
        let file = try scratch.file("bulk.ndjson", lines.joined(separator: "\n") + "\n")
        // A pseudo-terminal through /dev/ptmx and its ioctls (Glibc's posix_openpt, unlockpt and
        // ptsname are not visible to Swift): TIOCSPTLCK unlocks it, TIOCGPTN gives its number.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: CInt = 0
        var number: CInt = 0
        try #require(ioctl(master, UInt(0x4004_5431), &unlock) == 0 && ioctl(master, UInt(0x8004_5430), &number) == 0)
        let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(terminal >= 0)
        let process = ChildProcess()
        process.executableURL = PagedDBBinary.url
        process.arguments = ["seed", "home", "--db", db, "--file", file]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
        try process.start()
        close(terminal)
        // Read off the test pool: the terminal is read until the seed has exited.
        let shown = await offThePool {
            var shown = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                // EIO once the seed has exited and no one holds the terminal any more.
                let read = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
                if read <= 0 { break }
                shown.append(contentsOf: buffer[0..<read])
            }
            return shown
        }
        await process.ended()
        let text = String(decoding: shown, as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("seeding home: \(count) items read; writing them in id order…"), "\(text.suffix(300))")
    }

    /// A feed whose row count says 0 while it has rows (a damaged or edited file, which verify
    /// names) takes the bulk path, where ids of the fixture that its rows have are no repeat of the
    /// fixture. It is the cache that is damaged: status 2, nothing written, and the fixture not blamed.
    /// It guarded against the seed blaming the fixture with `file:1:1: duplicate id ""`.
    @Test func aBulkSeedIntoAFeedWithUncountedRowsBlamesTheCacheNotTheFixture() async throws {
        let db = scratch.path("cache.sqlite")
        let file = try unorderedFixture("bulk.ndjson", count: 60_000)
        let head = try scratch.file(
            "head.ndjson",
            (try String(contentsOfFile: file, encoding: .utf8)).split(separator: "\n").prefix(10).joined(
                separator: "\n"))
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", head]).status == 0)
        try DatabaseQueue(path: db).write { store in
            try store.connection.execute(
                "UPDATE feed SET row_count = 0, top_position = NULL, bottom_position = NULL WHERE key = 'home'")
        }
        let before = scratch.fingerprint(db)
        let result = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", file])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(!result.stderr.contains("duplicate id"), "\(result.stderr)")
        #expect(result.stderr.contains("pagedb verify"), "\(result.stderr)")
        #expect(scratch.fingerprint(db) == before)
    }

    @Test func aTwentyMegabyteLineIsRefusedWithItsLine() async throws {
        let db = scratch.path("cache.sqlite")
        let huge = "{\"id\": 1}\n{\"id\": 2, \"blob\": \"" + String(repeating: "x", count: 20 << 20) + "\"}\n"
        let file = try scratch.file("huge.ndjson", huge)
        let result = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", file])
        #expect(result.status == 65)
        #expect(result.stderr.contains("huge.ndjson:2:1:"), "\(result.stderr)")
        #expect(result.stderr.contains("1 MiB limit"))
        #expect(!FileManager.default.fileExists(atPath: db), "nothing written, not even a new file")
    }
}
