import Foundation
import PagedStore
import PagedStoreFixtures
import TestSupport
import Testing

/// A bulk seed into a file without items runs with a rollback journal instead of the log (its pages
/// are written once): all or nothing under SIGKILL, and back in WAL mode afterwards.
@Suite(.limit(minutes: 15), .plainRunOnly) struct BulkSeedJournalTests {
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory(prefix: "pagedbTests") }

    /// `count` NDJSON lines with distinct ids in no order (7919 is prime to 200,000).
    func fixture(count: Int) throws -> String {
        let lines = (0..<count).map { index in #"{"id":"x\#(index * 7919 % count)","n":\#(index)}"# }
        return try scratch.file("big.ndjson", lines.joined(separator: "\n") + "\n")
    }

    /// The journal mode recorded in the file's header: 1 for a rollback journal, 2 for WAL.
    func headerJournalMode(_ db: String) -> UInt8? {
        guard let header = FileManager.default.contents(atPath: db), header.count > 19 else { return nil }
        return header[header.startIndex + 18]
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    func rows(_ db: String) throws -> Int {
        let queue = try DatabaseQueue(path: db, mode: .readOnly)
        return try queue.read { store in try store.feed(key: "home")?.rowCount ?? 0 }
    }

    /// Killed at instants inside its transaction (its `-journal` exists: while rows are staged, or
    /// once its pages are being written into the file, `grown`), the file is as before or wholly seeded; `pagedb verify`, a read-only open, plays the hot journal back and finds nothing
    /// wrong; the engine opens the file; a last seed completes and leaves the file in WAL mode.
    @Test func aBulkSeedKilledInItsTransactionLeavesTheFileAsBeforeOrWhole() async throws {
        let db = scratch.path("cache.sqlite")
        let count = 200_000
        let file = try fixture(count: count)
        var killedWhileWriting = 0
        for (grown, delay) in [(false, 0), (false, 50), (true, 0), (true, 30), (true, 150)] {
            let process = ChildProcess()
            process.executableURL = PagedDBBinary.url
            process.arguments = ["seed", "home", "--db", db, "--file", file]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.start()
            // The journal appears with the transaction's first write: the kill lands inside it. (Creating
            // the file takes a journal too, for a moment, while the file is still under a page long.)
            // `grown`: past 1 MiB, the rows are being written into the file itself.
            let size = grown ? 1 << 20 : 8192
            // Polled off the test pool: the kill's timing is the test.
            let killedInside = await offThePool {
                let deadline = Date().addingTimeInterval(60)
                while !(FileManager.default.fileExists(atPath: db + "-journal") && Self.fileSize(db) > size),
                    process.isRunning, Date() < deadline
                {
                    usleep(200)
                }
                usleep(UInt32(delay * 1000))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return process.terminationReason == .uncaughtSignal
                    && FileManager.default.fileExists(atPath: db + "-journal") && Self.fileSize(db) > 1 << 20
            }
            if killedInside { killedWhileWriting += 1 }
            let verified = try await PagedDBBinary.run(["verify", "--db", db])
            #expect(
                verified.status == 0,
                "kill \(grown ? "writing" : "staging") + \(delay) ms: \(verified.stdout) \(verified.stderr)")
            // A journal killed before its header was synced is not hot (no page of the file was
            // written yet): SQLite leaves it in place, unused; the next rollback-mode write replaces it.
            let seeded = try rows(db)
            #expect(
                seeded == 0 || seeded == count, "kill \(grown ? "writing" : "staging") + \(delay) ms: \(seeded) rows")
            // The engine opens it (read-write), which also brings the file back to WAL mode.
            let engine = try DatabaseQueue(path: db)
            #expect(try engine.read { try $0.verify() }.isEmpty)
            engine.close()
            #expect(headerJournalMode(db) == 2)
            if seeded == count {
                for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: db + suffix) }
            }
        }
        #expect(killedWhileWriting > 0, "at least one kill left a hot journal and a half-written file")
        for suffix in ["", "-journal"] { try? FileManager.default.removeItem(atPath: db + suffix) }
        let seeded = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", file])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        #expect(try rows(db) == count)
        #expect(headerJournalMode(db) == 2, "back in WAL mode after the seed")
        #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }

    /// Another connection holding the file (an app, a reader) keeps it in WAL mode: the seed goes
    /// through the log as before, and that connection reads the whole seed afterwards.
    @Test func aBulkSeedWhileAnotherConnectionHasTheFileGoesThroughTheLog() async throws {
        let db = scratch.path("cache.sqlite")
        #expect(try await PagedDBBinary.run(["migrate", "--db", db]).status == 0)
        let reader = try DatabaseQueue(path: db, mode: .readOnly)
        #expect(try reader.read { try $0.feed(key: "home") } == nil)
        let file = try fixture(count: 60_000)
        let seeded = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", file])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        #expect(headerJournalMode(db) == 2)
        #expect(try reader.read { try $0.feed(key: "home")?.rowCount } == 60_000)
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }

    /// A bad line of a bulk seed into a new file writes nothing and leaves the file in WAL mode.
    @Test func aRepeatedIdInABulkSeedRollsTheJournalBack() async throws {
        let db = scratch.path("cache.sqlite")
        var lines = (0..<60_000).map { index in #"{"id":"x\#(index * 7919 % 60_000)"}"# }
        lines.append(#"{"id":"x7919"}"#)
        let file = try scratch.file("repeat.ndjson", lines.joined(separator: "\n") + "\n")
        let result = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", file])
        #expect(result.status == 65)
        #expect(result.stderr.contains("repeat.ndjson:60001:1:"), "\(result.stderr)")
        #expect(try rows(db) == 0)
        #expect(headerJournalMode(db) == 2)
        #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }

    /// The sorts of a bulk seed run with a helper thread (`PRAGMA threads = 1`); the connection gets
    /// its own setting back afterwards, and the rows are whole and in the file's order.
    @Test func aBulkSeedGivesTheConnectionItsThreadsSettingBack() throws {
        let queue = try DatabaseQueue(path: scratch.path("cache.sqlite"))
        let count = PageStore.bulkSeedMinimum
        let items = (0..<count).map { index in
            FixtureItem(id: "x\(index * 7919 % count)", section: nil, json: Data(#"{"n":\#(index)}"#.utf8))
        }
        let before = try queue.read { try $0.connection.int64("PRAGMA threads") }
        let written = try queue.write { store in
            var run = try store.beginSeed(into: "home", expectedItems: count)
            #expect(run.isBulk)
            for start in stride(from: 0, to: count, by: 50) {
                let page = FixturePage(items: Array(items[start..<start + 50]), olderCursor: nil, newerCursor: nil)
                try store.seed(page, offsets: Array(repeating: 0, count: 50), &run)
            }
            return try store.finishSeed(&run)
        }
        #expect(written == count)
        #expect(try queue.read { try $0.connection.int64("PRAGMA threads") } == before)
        let firstRows = try queue.read { store in
            try store.window(of: try #require(try store.feed(key: "home")), from: .top, limit: 3).map(\.itemID)
        }
        #expect(firstRows == items.prefix(3).map(\.id))
        #expect(try queue.read { try $0.verify() }.isEmpty)
    }
}
