import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

@testable import pagedb_harness

/// A feed observed in this process while another process (`pagedb-harness random-writer`) writes it with a
/// long random sequence of every kind of operation, and `pagedb apply` and `pagedb seed` write it
/// too.
extension MultiProcessTests {
    /// A change record limit above the run's writes: a list that falls far behind (a loaded
    /// machine starves its thread) still finds every write it missed, so any reload from the file
    /// is a defect, not the record's bound.
    static let keepsEveryWrite = 1_000_000

    /// `PAGEDSTORE_LIVE_OPERATIONS` sets the writer's operations (default 300).
    static let liveOperations =
        ProcessInfo.processInfo.environment["PAGEDSTORE_LIVE_OPERATIONS"].flatMap(Int.init) ?? 300

    /// Every batch the observing list receives applies to the rows before it, none is a full reload
    /// taken from the file (every writer records its changes), no writer meets a busy error, and
    /// after the last write the list shows the file's rows by itself.
    @Test(.limit(minutes: 10))
    func anObservedFeedFollowsAnotherProcessesRandomWritesWithExactBatches() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("shared.sqlite")
        let store = try FeedStore(path: db)
        let feed = try store.feed(
            "home", source: ScriptedSource<RandomEntry> { _ in Page(items: [], olderCursor: nil) },
            policy: PagedDBHarness.RandomWriter.policy)
        let list = await ObservedList(feed)
        let writer = ChildProcess()
        writer.executableURL = HarnessBinary.url
        // Paced, so that the observer sees the writer's steps rather than only their sum.
        writer.arguments = [
            "random-writer", "--db", db, "--operations", "\(Self.liveOperations)", "--seed", "23",
            "--change-record-limit", "\(Self.keepsEveryWrite)",
            "--max-pause-ms", "4",
        ]
        let output = Pipe()
        writer.standardOutput = output
        try writer.start()
        // Meanwhile other commands write the same feed: a refresh with new posts on top, items seeded below.
        var runs = 0
        while writer.isRunning {
            runs += 1
            let page = try scratch.file(
                "page\(runs).json",
                #"{"items":[{"id":"applied\#(runs)-0"},{"id":"applied\#(runs)-1","revision":1}],"next_cursor":null}"#)
            let apply = try await PagedDBBinary.run([
                "apply", "home", "--db", db, "--page", page, "--as", "refresh",
                "--change-record-limit", "\(Self.keepsEveryWrite)",
            ])
            #expect(apply.status == 0, "apply \(runs): \(apply.stderr)")
            let items = try scratch.file("seed\(runs).json", #"[{"id":"seeded\#(runs)"}]"#)
            let seed = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", items])
            #expect(seed.status == 0, "seed \(runs): \(seed.stderr)")
        }
        let report = String(decoding: output.fileHandleForReading.readToTheEnd(), as: UTF8.self)
        await writer.ended()
        #expect(writer.terminationStatus == 0, "the writer failed: \(report)")
        #expect(report.contains("busy=0"), "the writer met busy errors: \(report)")
        let file = try DatabaseQueue(path: db).read { store in
            guard let record = try store.feed(key: "home") else { return [RandomEntry]() }
            return try store.window(of: record, from: .top, limit: Int.max).map {
                try ItemCodec<RandomEntry>.json.decode($0.payload)
            }
        }
        // Nothing asks the feed to read: it catches up by itself, or the time limit fails the test.
        _ = await list.firstSnapshot { $0.rows.count == file.count && $0.rows.loadedItems == file }
        let seen = list.seen
        print(
            "live following, another process, \(Self.liveOperations) operations and \(runs) apply and seed runs: "
                + "\(seen); writer \(report.trimmingCharacters(in: .whitespacesAndNewlines))")
        #expect(list.rejectedChanges.isEmpty, "\(list.rejectedChanges.prefix(3))")
        #expect(seen.busyFailures == 0)
        // Every writer here records its changes, and none writes more than the record keeps.
        #expect(seen.reloadsFromFile == 0, "\(seen)")
        store.close()
    }
}
