import Foundation
import TestSupport
import Testing

/// Read-only commands racing a writer process on one file: each read is one
/// consistent snapshot, whole, and ends.
@Suite(.limit(minutes: 15), .plainRunOnly) struct ReadWhileWriteTests {
    /// Races per run: `PAGEDSTORE_READ_RACES` (long mode), 30 by default and in CI.
    static let races = Int(ProcessInfo.processInfo.environment["PAGEDSTORE_READ_RACES"] ?? "") ?? 30

    /// The writer of race `race`: even races seed 30,000 rows into another feed (past the 1,000-page
    /// auto-checkpoint, so checkpoints rewrite b-tree pages the reader walks: the item table and its
    /// indexes are shared by all feeds), odd races delete them again.
    static func writer(db: String, race: Int) -> ChildProcess {
        let writer = ChildProcess()
        writer.executableURL = PagedDBBinary.url
        writer.arguments =
            race % 2 == 0
            ? ["seed", "other", "--db", db, "--generate", "30000", "--seed", "\(race)"]
            : ["delete", "other", "--db", db]
        writer.standardOutput = FileHandle.nullDevice
        // Errors go to a file named for the race, read back when the writer fails.
        let log = db + "-writer-\(race).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        writer.standardError = FileHandle(forWritingAtPath: log) ?? FileHandle.nullDevice
        return writer
    }

    /// Race `race`: starts a read of `reading`, then the race's writer a few milliseconds later,
    /// and waits for both, blocking its thread (run it off the test pool).
    /// - Returns: The read (nil when it did not start), whether the writer still ran when the read
    ///   ended, and the writer's exit status.
    static func race(
        _ race: Int, db: String, reading: [String], unprivileged: Bool = false
    ) throws -> (PagedDBBinary.Result?, Bool, Int32) {
        let writer = Self.writer(db: db, race: race)
        let read = Locked<PagedDBBinary.Result?>(nil)
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            do {
                read.value = try PagedDBBinary.runBlocking(reading, timeout: 60, unprivileged: unprivileged)
            } catch {
                print("race \(race): the reader did not start: \(error)")
            }
            group.leave()
        }
        if !unprivileged { Thread.sleep(forTimeInterval: Double(race % 5) * 0.004) }
        try writer.start()
        group.wait()
        let writerStillRan = writer.isRunning
        writer.waitUntilExit()
        return (read.value, writerStillRan, writer.terminationStatus)
    }

    @Test func exportsRacingAWriterAreWholeSnapshots() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("race.sqlite")
        let rows = 60000
        #expect(try await PagedDBBinary.run(["seed", "big", "--db", db, "--generate", "\(rows)"]).status == 0)
        let expected = try await PagedDBBinary.run(["export", "big", "--db", db, "--format", "ndjson"])
        #expect(expected.status == 0)
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"), "an idle read leaves no -wal behind")
        var damaged = 0
        var short = 0
        var runaway = 0
        var overlapped = 0
        for race in 0..<Self.races {
            let (result, writerStillRan, writerStatus) = try await offThePool {
                try Self.race(race, db: db, reading: ["export", "big", "--db", db, "--format", "ndjson"])
            }
            if writerStillRan { overlapped += 1 }
            #expect(
                writerStatus == 0,
                "race \(race): the writer failed: \(String(decoding: FileManager.default.contents(atPath: db + "-writer-\(race).log") ?? Data(), as: UTF8.self))"
            )
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
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }

    /// A reader that cannot write the file (another user's cache) reads it as immutable: while a writer
    /// changes it, each read is whole or fails with busy (exit 5), never short or damaged.
    @Test func aReaderWithoutWriteAccessGetsWholeReadsOrBusy() async throws {
        guard getuid() == 0 else { return }  // needs a second user: the reader runs as nobody
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("shared.sqlite")
        #expect(try await PagedDBBinary.run(["seed", "big", "--db", db, "--generate", "20000"]).status == 0)
        chmod(db, 0o644)
        let expected = try await PagedDBBinary.run(["export", "big", "--db", db, "--format", "ndjson"]).stdout
        var outcomes: [Int32: Int] = [:]
        for race in 0..<10 {
            let (result, _, _) = try await offThePool {
                try Self.race(
                    race, db: db, reading: ["export", "big", "--db", db, "--format", "ndjson"], unprivileged: true)
            }
            guard let result else { continue }
            outcomes[result.status, default: 0] += 1
            #expect(!result.crashed && !result.timedOut, "race \(race)")
            #expect(result.status != 0 || result.stdout == expected, "race \(race): exit 0 with a short or wrong read")
            #expect([0, 5, 74].contains(result.status), "race \(race): exit \(result.status) \(result.stderr)")
        }
        print("ReadWhileWrite, reader without write access: exit statuses \(outcomes)")
    }

    /// After a crash (a hot WAL), a read leaves the database and its WAL byte-identical; only the
    /// `-shm` index may be rebuilt (the "Using pagedb" article, "What each command promises about files").
    @Test func aReadAfterACrashLeavesTheDatabaseAndItsLogAsTheyWere() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("crashed.sqlite")
        let writer = ChildProcess()
        writer.executableURL = HarnessBinary.url
        writer.arguments = ["crash-writer", "--db", db, "--operations", "100000", "--seed", "4"]
        let output = Pipe()
        writer.standardOutput = output
        try writer.start()
        // Killed once it has committed twenty operations (it prints ACK after each), while it writes on.
        await offThePool {
            var printed = Data()
            while String(decoding: printed, as: UTF8.self).components(separatedBy: "ACK").count <= 20 {
                let chunk = output.fileHandleForReading.nextChunk()
                if chunk.isEmpty { break }
                printed.append(chunk)
            }
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
        }
        #expect(FileManager.default.fileExists(atPath: db + "-wal"), "a hot WAL is left")
        let before = scratch.fingerprint(db)
        let read = try await PagedDBBinary.run(["feeds", "--db", db])
        #expect(read.status == 0, "\(read.stderr)")
        let after = scratch.fingerprint(db)
        #expect(after[""] == before[""] && after["-wal"] == before["-wal"])
    }
}
