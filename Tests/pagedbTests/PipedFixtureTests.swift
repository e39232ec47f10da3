import Foundation
import TestSupport
import Testing

/// `--file -` is standard input, and a pipe or FIFO given as a path is read as the stream it is: the
/// same items, the same `file:line:column` errors and the same all-or-nothing write as a file.
@Suite(.limit(minutes: 3), .plainRunOnly) struct PipedFixtureTests {
    let scratch: TemporaryDirectory
    let db: String
    /// Three NDJSON items, in a file the scripts `cat` into a pipe.
    let fixture: String
    /// Two good lines, then a line that is not JSON.
    let bad: String
    /// A page object.
    let page: String
    init() throws {
        scratch = try TemporaryDirectory(prefix: "pagedbTests")
        db = scratch.path("cache.sqlite")
        fixture = try scratch.file("items.ndjson", (1...3).map { #"{"id":"i\#($0)"}"# + "\n" }.joined())
        bad = try scratch.file("bad.ndjson", #"{"id":"i1"}"# + "\n" + #"{"id":"i2"}"# + "\n" + "{nope}\n")
        page = try scratch.file("page.json", #"{"items":[{"id":"n1"},{"id":"n2"}],"next_cursor":null}"#)
    }

    /// The rows of `home`, as `pagedb feeds --json` counts them; nil when the file has no such feed.
    func homeRows() async throws -> Int? {
        let feeds = try PagedDBBinary.json(try await PagedDBBinary.run(["feeds", "--db", db, "--json"]))
        return (feeds as? [[String: Any]])?.first { $0["key"] as? String == "home" }?["rows"] as? Int
    }

    @Test func seedReadsItsFixtureFromStandardInputGivenAsDash() async throws {
        let run = try await PagedDBBinary.shell(#"cat "\#(fixture)" | "$PAGEDB" seed home --db "\#(db)" --file -"#)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Seeded 3 items into home."))
        await #expect(try homeRows() == 3)
    }

    @Test func seedReadsAPipeGivenAsAPath() async throws {
        let run = try await PagedDBBinary.shell(#""$PAGEDB" seed home --db "\#(db)" --file <(cat "\#(fixture)")"#)
        #expect(run.status == 0, "\(run.stderr)")
        await #expect(try homeRows() == 3)
    }

    @Test func seedReadsAFIFO() async throws {
        let fifo = scratch.path("items.fifo")
        let run = try await PagedDBBinary.shell(
            #"mkfifo "\#(fifo)" && { cat "\#(fixture)" > "\#(fifo)" & } && "$PAGEDB" seed home --db "\#(db)" --file "\#(fifo)""#
        )
        #expect(run.status == 0, "\(run.stderr)")
        await #expect(try homeRows() == 3)
    }

    @Test func aBadLineOnStandardInputNamesItsLineAndColumnAndWritesNothing() async throws {
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", fixture]).status == 0)
        let run = try await PagedDBBinary.shell(#"cat "\#(bad)" | "$PAGEDB" seed home --db "\#(db)" --file -"#)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("<stdin>:3:"), "\(run.stderr)")
        await #expect(try homeRows() == 3, "nothing of the bad stream was written")
    }

    @Test func aBadLineOnAPipeGivenAsAPathNamesItsLineAndColumn() async throws {
        let run = try await PagedDBBinary.shell(#""$PAGEDB" seed home --db "\#(db)" --file <(cat "\#(bad)")"#)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains(":3:") && run.stderr.contains("/dev/fd/"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db), "a bad fixture opens no cache")
    }

    @Test func applyReadsItsPageFromStandardInput() async throws {
        let run = try await PagedDBBinary.shell(
            #"cat "\#(page)" | "$PAGEDB" apply home --db "\#(db)" --page - --as refresh"#)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("2 rows"), "\(run.stdout)")
        await #expect(try homeRows() == 2)
    }

    @Test func applyReadsAPipeGivenAsAPath() async throws {
        let run = try await PagedDBBinary.shell(
            #""$PAGEDB" apply home --db "\#(db)" --page <(cat "\#(page)") --as refresh"#)
        #expect(run.status == 0, "\(run.stderr)")
        await #expect(try homeRows() == 2)
    }

    @Test func seedAndApplyHelpSayThatDashIsStandardInput() async throws {
        for command in ["seed", "apply"] {
            let help = try await PagedDBBinary.run([command, "--help"])
            #expect(help.stdout.contains("- for standard input"), "\(command): \(help.stdout)")
        }
    }
}
