import Testing

/// The reliability tests' tools are `pagedb-harness`, built for the tests only; the shipped `pagedb`
/// holds user commands only.
@Suite struct HarnessBinaryTests {
    /// The tools the harness runs, as the tests name them.
    static let tools = ["crash-writer", "random-writer", "outbox-writer", "hold-lock"]

    /// `pagedb --help-hidden` names no tool, and naming one is a usage error (64).
    @Test func pagedbHasNoneOfTheTestTools() async throws {
        let help = try await PagedDBBinary.run(["--help-hidden"])
        #expect(help.status == 0)
        for tool in Self.tools + ["paced-writer"] {
            #expect(!help.stdout.contains(tool), "pagedb --help-hidden lists \(tool)")
            let run = try await PagedDBBinary.run([tool])
            #expect(run.status == 64, "pagedb \(tool) is a usage error: \(run.stderr)")
        }
    }

    /// `pagedb-harness --help` says what it is for and lists every tool, whose own help shows an example.
    @Test func theHarnessListsItsToolsEachWithAnExample() async throws {
        let help = try await HarnessBinary.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("Test tools for PagedStore's reliability tests"))
        for tool in Self.tools {
            #expect(help.stdout.contains(tool), "pagedb-harness --help lists \(tool)")
            let toolHelp = try await HarnessBinary.run([tool, "--help"])
            #expect(toolHelp.status == 0, "\(tool)")
            #expect(toolHelp.stdout.contains("pagedb-harness \(tool) --db"), "\(tool) --help shows an example")
        }
    }
}
