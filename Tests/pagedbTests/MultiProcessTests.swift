import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Two writer processes and a reader on one file, as an app, its extension and `pagedb` would be.
@Suite(.serialized, .limit(minutes: 15)) struct MultiProcessTests {
    @Test func twoWriterProcessesShareAFileWithoutBusyErrors() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("shared.sqlite")
        #expect(
            try await HarnessBinary.run(["crash-writer", "--db", db, "--operations", "5", "--seed", "9"]).status == 0)
        let writers = (1...2).map { seed in
            DispatchQueue.global().sync { () -> ChildProcess in
                let process = ChildProcess()
                process.executableURL = HarnessBinary.url
                process.arguments = ["crash-writer", "--db", db, "--operations", "300", "--seed", "\(seed)"]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                return process
            }
        }
        for writer in writers { try writer.start() }
        var reads = 0
        while writers.contains(where: \.isRunning) {
            let feeds = try await PagedDBBinary.run(["feeds", "--db", db, "--json"])
            #expect(feeds.status == 0, "a read while both write: \(feeds.stderr)")
            reads += 1
        }
        for writer in writers {
            await writer.ended()
            #expect(writer.terminationStatus == 0, "a writer failed (a busy error would end it with status 1)")
        }
        #expect(reads > 0)
        let verify = try await PagedDBBinary.run(["verify", "--db", db])
        #expect(verify.status == 0, "\(verify.stdout)")
        let idle = scratch.fingerprint(db)
        _ = try await PagedDBBinary.run(["show", "feed0", "--db", db])
        #expect(scratch.fingerprint(db) == idle, "an inspection of the idle file changes nothing")
    }

    @Test func aLockHeldShorterThanTheTimeoutIsWaitedOut() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("lock.sqlite")
        // A timeout far above the hold: the test proves the wait, not how soon a loaded machine lets
        // the holder go on.
        let store = try FeedStore(path: db, busyTimeout: .seconds(20))
        let feed = try store.feed("home", source: ModelSource.page, policy: FeedPolicy(refreshOnOpen: .never))
        let holder = try await startHolder(db: db, milliseconds: 600)
        await feed.refresh()
        #expect(await feed.snapshot.refresh == .idle, "the write waited for the lock instead of failing")
        await holder.ended()
    }

    /// A lock held for 10 s against a busy timeout of 3 s: the write fails busy once the timeout has
    /// passed, long before the lock's release. (An upper bound closer to the timeout measured the
    /// machine: SQLite's busy handler counts the sleeps it asks for, which a loaded machine lengthens.)
    @Test func aLockHeldLongerGivesABusyErrorAtTheTimeoutNotAtItsRelease() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("lock.sqlite")
        let timeout = 3.0
        let store = try FeedStore(path: db, busyTimeout: .seconds(timeout))
        let feed = try store.feed("home", source: ModelSource.page, policy: FeedPolicy(refreshOnOpen: .never))
        let holder = try await startHolder(db: db, milliseconds: 10_000)
        let started = Date()
        await feed.refresh()
        let waited = Date().timeIntervalSince(started)
        guard case .failed(let error) = await feed.snapshot.refresh else {
            Issue.record("expected a busy failure")
            return
        }
        #expect(error.storageKind == .busy)
        #expect(waited >= timeout * 0.9, "gave up before the timeout: waited \(waited) s")
        #expect(waited < 7, "waited for the lock's release, not the timeout: \(waited) s")
        holder.terminate()
        await holder.ended()
    }

    /// Starts `pagedb-harness hold-lock` and returns once it holds the lock, waited for off the test pool.
    func startHolder(db: String, milliseconds: Int) async throws -> ChildProcess {
        try await offThePool { try startHolderBlocking(db: db, milliseconds: milliseconds) }
    }

    private func startHolderBlocking(db: String, milliseconds: Int) throws -> ChildProcess {
        let process = ChildProcess()
        process.executableURL = HarnessBinary.url
        process.arguments = ["hold-lock", "--db", db, "--milliseconds", "\(milliseconds)"]
        let output = Pipe()
        process.standardOutput = output
        try process.start()
        var received = Data()
        while !String(decoding: received, as: UTF8.self).contains("LOCKED") {
            let chunk = output.fileHandleForReading.nextChunk()
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        return process
    }
}

/// A source answering one page at once.
enum ModelSource {
    struct Row: FeedItem, Codable { let id: String }
    static var page: ScriptedSource<Row> {
        ScriptedSource { _ in Page(items: [Row(id: "a"), Row(id: "b")], olderCursor: nil) }
    }
}
