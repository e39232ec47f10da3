import Foundation
import Testing

/// Every input the fuzzer has kept (Tests/FuzzCorpus) is replayed through the fuzz entry point on
/// every test run, so a crash it once found stays fixed.
@Suite struct FuzzCorpusTests {
    @Test func theFixtureCorpusReplaysWithoutACrash() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FuzzCorpus/fixtures").path
        let replayer = PagedDBBinary.url.deletingLastPathComponent().appendingPathComponent("FuzzFixtures")
        let process = Process()
        process.executableURL = replayer
        process.arguments = [corpus]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let count = try FileManager.default.contentsOfDirectory(atPath: corpus).count
        #expect(text.contains("replayed \(count) inputs"))
    }
}
