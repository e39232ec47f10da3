import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The crash harness: a writer process killed with SIGKILL at random instants, then the file checked.
///
/// `PAGEDSTORE_CRASH_KILLS=N` sets the number of kill points (default 120, as in CI; RELIABILITY.md's long mode
/// is 1,000). Every kill is followed by a reopen on the same file, so recovery is exercised each time.
@Suite(.limit(minutes: 15)) struct CrashTests {
    static var kills: Int {
        ProcessInfo.processInfo.environment["PAGEDSTORE_CRASH_KILLS"].flatMap(Int.init) ?? 120
    }

    @Test func everyAcknowledgedPageSurvivesAKillAtAnyInstant() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("crash.sqlite")
        var random = SystemRandomNumberGenerator()
        var acknowledged: [String: Set<String>] = [:]  // ids each feed must still have
        var totalAcks = 0
        // A first writer that exits normally: the file exists before the first kill.
        let setUp = try await HarnessBinary.run(["crash-writer", "--db", db, "--operations", "30"])
        try #require(setUp.status == 0, "the writer runs: \(setUp.stderr)")
        _ = apply(setUp.stdout.split(separator: "\n").map(String.init), to: &acknowledged)
        for kill in 0..<Self.kills {
            let delay = Duration.milliseconds(Int.random(in: 20...200, using: &random))
            let log = try await runAndKill(db: db, seed: UInt64(kill + 1), after: delay)
            let inFlight = apply(log, to: &acknowledged)
            totalAcks += log.filter { $0.hasPrefix("ACK") }.count

            // Reopened as an app would (read-write: recovery of the hot WAL runs here), then checked.
            let queue = try DatabaseQueue(path: db)
            let violations = try queue.read { try $0.verify() }
            #expect(violations.isEmpty, "kill \(kill): \(violations)")
            for (feed, ids) in acknowledged where !inFlight.contains(feed) {
                let stored = try queue.read { store -> Set<String> in
                    guard let record = try store.feed(key: feed) else { return [] }
                    return Set(try store.window(of: record, from: .top, limit: Int.max).map(\.itemID))
                }
                let missing = ids.subtracting(stored)
                #expect(missing.isEmpty, "kill \(kill): \(feed) lost acknowledged rows \(missing.sorted().prefix(5))")
            }
            // The next writer's first operation may change any feed; what it must keep is checked again then.
            for feed in inFlight { acknowledged[feed] = nil }
        }
        #expect(totalAcks > Self.kills, "the writer committed between kills")
    }

    /// A writer killed while optimistic edits are pending and its pages land (a refresh, a next page
    /// inside the edit's server call): in the file as recovered, every pending edit still shows, an
    /// update over whatever value the server's page wrote, a removal gone, an insert there. Pages and
    /// their replay are one transaction, so no instant shows one without the other.
    @Test func everyPendingEditShowsInTheFileAfterAKillAtAnyInstant() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("crash.sqlite")
        var random = SystemRandomNumberGenerator()
        let setUp = try await HarnessBinary.run(["crash-writer", "--db", db, "--operations", "10"])
        try #require(setUp.status == 0, "the writer runs: \(setUp.stderr)")
        var pendingSeen = 0
        for kill in 0..<max(Self.kills / 5, 20) {
            let delay = Duration.milliseconds(Int.random(in: 20...200, using: &random))
            _ = try await runAndKill(db: db, seed: UInt64(kill + 1), after: delay, arguments: ["--pending-edits"])
            let queue = try DatabaseQueue(path: db)
            let violations = try queue.read { try $0.verify() }
            #expect(violations.isEmpty, "kill \(kill): \(violations)")
            try queue.read { store in
                for key in ["feed0", "feed1", "feed2"] {
                    guard let feed = try store.feed(key: key) else { continue }
                    for edit in try store.pendingEdits(of: feed) {
                        pendingSeen += 1
                        let stored = try store.items(withIDs: [edit.itemID], in: feed)[edit.itemID]
                        switch edit.kind {
                        case .update:
                            #expect(
                                stored == nil || stored?.payload == edit.edited,
                                "kill \(kill): \(key) shows the server's \(edit.itemID) under a pending edit")
                        case .remove:
                            #expect(stored == nil, "kill \(kill): \(key) shows \(edit.itemID), removed and pending")
                        case .insert:
                            #expect(stored != nil, "kill \(kill): \(key) lost \(edit.itemID), inserted and pending")
                        }
                    }
                }
            }
        }
        #expect(pendingSeen > 0, "kills landed while edits were pending")
    }

    /// Starts a writer, kills it after `delay`, and returns the lines it printed.
    func runAndKill(db: String, seed: UInt64, after delay: Duration, arguments: [String] = []) async throws -> [String]
    {
        try await KilledRun.lines(of: ["crash-writer", "--db", db, "--seed", "\(seed)"] + arguments, after: delay)
    }

    /// Folds a writer's log into the ids each feed must keep, and returns the feeds whose last operation
    /// started but was not acknowledged (it may or may not have committed).
    func apply(_ log: [String], to acknowledged: inout [String: Set<String>]) -> Set<String> {
        var inFlight: Set<String> = []
        for line in log {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 3 else { continue }
            let (kind, feed, operation) = (fields[0], fields[1], fields[2])
            if kind == "START" {
                inFlight.insert(feed)
                continue
            }
            inFlight.remove(feed)
            // A trim removes rows the writer cannot name, and a refresh may drop rows the server no longer lists.
            if operation == "trim" || operation == "refresh" { acknowledged[feed] = [] }
            acknowledged[feed, default: []].formUnion(fields.dropFirst(3))
        }
        return inFlight
    }
}
