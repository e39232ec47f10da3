import Foundation
import Testing

/// Read-only commands racing a writer process on one file (issue 11, item 1): each read is one
/// consistent snapshot, whole, and ends.
@Suite struct ReadWhileWriteTests {
    /// Races per run: `PAGEDSTORE_READ_RACES` (long mode), 50 in CI.
    static let races = Int(ProcessInfo.processInfo.environment["PAGEDSTORE_READ_RACES"] ?? "") ?? 50

    @Test func exportsRacingAWriterAreWholeSnapshots() throws {
        let scratch = try Scratch()
        let db = scratch.path("race.sqlite")
        let rows = 60000
        #expect(try PagedDBBinary.run(["seed", "big", "--db", db, "--generate", "\(rows)"]).status == 0)
        let expected = try PagedDBBinary.run(["export", "big", "--db", db, "--format", "ndjson"])
        #expect(expected.status == 0)
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"), "an idle read leaves no -wal behind")
        var damaged = 0
        var short = 0
        var runaway = 0
        var overlapped = 0
        for race in 0..<Self.races {
            // Every other race deletes what the previous one seeded: checkpoints rewrite b-tree pages the
            // reader is walking (the item table and its indexes are shared by all feeds).
            let writer = Process()
            writer.executableURL = PagedDBBinary.url
            writer.arguments =
                race % 2 == 0
                ? ["seed", "other", "--db", db, "--generate", "30000", "--seed", "\(race)"]
                : ["delete", "other", "--db", db]
            writer.standardOutput = FileHandle.nullDevice
            writer.standardError = FileHandle.nullDevice
            let reader = DispatchQueue.global()
            nonisolated(unsafe) var result: PagedDBBinary.Result?
            let group = DispatchGroup()
            group.enter()
            reader.async {
                result = try? PagedDBBinary.run(
                    ["export", "big", "--db", db, "--format", "ndjson"], timeout: 60)
                group.leave()
            }
            Thread.sleep(forTimeInterval: Double(race % 5) * 0.004)
            try writer.run()
            group.wait()
            if writer.isRunning { overlapped += 1 }
            writer.waitUntilExit()
            #expect(writer.terminationStatus == 0, "race \(race): the writer failed")
            guard let result else {
                damaged += 1
                continue
            }
            if result.timedOut || result.stdout.utf8.count > expected.stdout.utf8.count {
                runaway += 1
            } else if result.status != 0 || result.crashed {
                damaged += 1
                print("race \(race): exit \(result.status): \(result.stderr)")
            } else if result.stdout != expected.stdout {
                short += 1
            }
        }
        print(
            "ReadWhileWrite: \(Self.races) races (\(overlapped) with the writer still running at the read's end): "
                + "\(damaged) damaged, \(short) short or wrong, \(runaway) runaway")
        #expect(damaged == 0 && short == 0 && runaway == 0)
        #expect(try PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }
}
