import Foundation
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Every input the fuzzer has kept (Tests/FuzzCorpus) is replayed through the fuzz entry point on
/// every test run, so a crash it once found stays fixed.
@Suite(.limit(minutes: 15)) struct FuzzCorpusTests {
    @Test func theFixtureCorpusReplaysWithoutACrash() async throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FuzzCorpus/fixtures").path
        let replayer = PagedDBBinary.url.deletingLastPathComponent().appendingPathComponent("FuzzFixtures")
        let process = ChildProcess()
        process.executableURL = replayer
        process.arguments = [corpus]
        let output = Pipe()
        process.standardOutput = output
        let replay = process
        let (text, exited) = try await offThePool {
            try replay.start()
            let text = String(decoding: output.fileHandleForReading.readToTheEnd(), as: UTF8.self)
            replay.waitUntilExit()
            return (text, replay.terminationReason == .exit && replay.terminationStatus == 0)
        }
        #expect(exited)
        let count = try FileManager.default.contentsOfDirectory(atPath: corpus).count
        #expect(text.contains("replayed \(count) inputs"))
    }

    /// Mutational fuzzing without coverage feedback: corpus inputs with bytes flipped, inserted,
    /// deleted, duplicated and spliced, fed to the reader. Every input gives fixtures or a
    /// `FixtureError` with a line and column inside the input. `PAGEDSTORE_FUZZ_RUNS=N` (default 20,000).
    @Test func mutatedFixturesGiveFixturesOrALocatedError() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FuzzCorpus/fixtures")
        let seeds = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted().map {
            [UInt8](try Data(contentsOf: corpus.appendingPathComponent($0)))
        }
        let runs = ProcessInfo.processInfo.environment["PAGEDSTORE_FUZZ_RUNS"].flatMap(Int.init) ?? 20_000
        var random = SplitMix64(seed: 0xF022)
        let dictionary: [[UInt8]] = [
            "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u00", "null", "true", "1e309", "\n", "\"id\"", "\"items\"",
        ]
        .map { Array($0.utf8) }
        var errors = 0
        for _ in 0..<runs {
            var input = seeds.randomElement(using: &random) ?? []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let at = input.isEmpty ? 0 : Int.random(in: 0..<input.count, using: &random)
                switch Int.random(in: 0..<5, using: &random) {
                case 0 where !input.isEmpty: input[at] ^= UInt8.random(in: 1...255, using: &random)
                case 1: input.insert(contentsOf: dictionary.randomElement(using: &random) ?? [], at: at)
                case 2 where !input.isEmpty:
                    input.removeSubrange(at..<min(input.count, at + Int.random(in: 1...8, using: &random)))
                case 3: input.insert(contentsOf: input[at...].prefix(16), at: at)
                default:
                    input += seeds.randomElement(using: &random)?.prefix(Int.random(in: 0...40, using: &random)) ?? []
                }
            }
            do {
                _ = try FixtureReader().read(Data(input), file: "fuzz")
            } catch {
                errors += 1
                let lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
                #expect(error.line >= 1 && error.line <= max(lines, 1), "line \(error.line) of \(lines): \(error)")
                #expect(error.column >= 1)
            }
        }
        #expect(errors > runs / 10, "most mutants are invalid and rejected")
    }
}
