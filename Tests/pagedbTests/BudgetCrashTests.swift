import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// `pagedb vacuum` killed with SIGKILL at random instants, while it evicts to a budget and while it
/// rewrites the file: the file recovers to one side of each transaction, `verify` is clean, and every
/// feed holds its rows whole, emptied, or cut to a top part (never a row lost from the middle).
@Suite(.limit(minutes: 15)) struct BudgetCrashTests {
    let scratch: TemporaryDirectory
    /// The file every run starts from: six feeds of 3,000 rows, about 5 MB, which a debug build
    /// evicts to the budget in about 80 ms and rewrites in about 60 (the kills fall in 15 to 90 ms).
    let template: String
    let keys = (0..<6).map { "feed\($0)" }

    init() async throws {
        scratch = try TemporaryDirectory(prefix: "pagedbTests")
        template = scratch.path("template.sqlite")
        for key in keys {
            _ = try await PagedDBBinary.run(["seed", key, "--db", template, "--generate", "3000", "--seed", "3"])
        }
    }

    /// Runs `pagedb` with `arguments` and kills it after `delay`; whether the kill found it running.
    /// Waited for off the test pool (see ``offThePool(_:)``).
    func runAndKill(_ arguments: [String], after delay: TimeInterval) async throws -> Bool {
        try await offThePool {
            let process = ChildProcess()
            process.executableURL = PagedDBBinary.url
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.start()
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return process.terminationReason == .uncaughtSignal
        }
    }

    @Test func aKillDuringAnEvictionOrAVacuumLosesNothingElse() async throws {
        let original = try StoredRows.byFeed(in: template)
        #expect(original.count == keys.count)
        var random = SystemRandomNumberGenerator()
        var interrupted = 0
        let runs = 24
        for run in 0..<runs {
            let db = scratch.path("run\(run).sqlite")
            try FileManager.default.copyItem(atPath: template, toPath: db)
            let evicting = run.isMultiple(of: 2)
            let arguments = ["vacuum", "--db", db] + (evicting ? ["--budget", "1500000"] : ["--full"])
            if try await runAndKill(arguments, after: Double.random(in: 0.015...0.09, using: &random)) {
                interrupted += 1
            }
            let violations = try DatabaseQueue(path: db).read { try $0.verify() }
            #expect(violations.isEmpty, "run \(run): \(violations)")
            let stored = try StoredRows.byFeed(in: db)
            for key in keys {
                let rows = stored[key] ?? []
                if evicting {
                    #expect(rows == Array(original[key, default: []].prefix(rows.count)), "run \(run): \(key)")
                } else {
                    #expect(rows == original[key], "run \(run): \(key) changed by a vacuum")
                }
            }
            try? FileManager.default.removeItem(atPath: db)
        }
        #expect(interrupted > 0, "some kills found the command at work")
    }
}
