import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The crash harness with a budget: the writer's own store evicts and trims as its writes push the
/// file over the budget, and the writer is killed at random instants, during an eviction as often as
/// not.
///
/// A budget may legitimately remove acknowledged rows, so "nothing acknowledged is lost" means: the
/// file is consistent, and each feed the writer was not writing at the kill holds a top part of the
/// rows it last had (its rows as last acknowledged, or as last found in the file): whole, emptied, or
/// cut from the bottom, never missing a row above the cut. `PAGEDSTORE_BUDGET_KILLS=N` sets the
/// number of kills (default 40).
extension CrashTests {
    static var budgetKills: Int {
        ProcessInfo.processInfo.environment["PAGEDSTORE_BUDGET_KILLS"].flatMap(Int.init) ?? 40
    }

    /// The writer's budget: its six feeds grow to about 250 KB without one, so most runs evict.
    static let budgetBytes = "120000"

    @Test func aKillDuringAnAutomaticEvictionLeavesEachFeedATopPart() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("budget.sqlite")
        var random = SystemRandomNumberGenerator()
        // A first writer that exits normally: the file exists, with a budget, before the first kill.
        let setUp = try await HarnessBinary.run([
            "crash-writer", "--db", db, "--budget", Self.budgetBytes, "--operations", "60",
        ])
        try #require(setUp.status == 0, "the writer runs: \(setUp.stderr)")
        var expected = try StoredRows.byFeed(in: db)
        var cuts = 0
        var totalAcks = 0
        for kill in 0..<Self.budgetKills {
            let delay = Duration.milliseconds(Int.random(in: 20...200, using: &random))
            let log = try await runAndKill(
                db: db, seed: UInt64(kill + 1), after: delay, arguments: ["--budget", Self.budgetBytes])
            let inFlight = applyKept(log, to: &expected)
            totalAcks += log.filter { $0.hasPrefix("ACK") }.count

            let violations = try DatabaseQueue(path: db).read { try $0.verify() }
            #expect(violations.isEmpty, "kill \(kill): \(violations)")
            let stored = try StoredRows.byFeed(in: db)
            for (feed, rows) in expected where !inFlight.contains(feed) {
                let kept = stored[feed] ?? []
                #expect(
                    kept == Array(rows.prefix(kept.count)),
                    "kill \(kill): \(feed) is not a top part of its acknowledged rows: lost \(Set(rows.prefix(kept.count)).subtracting(kept).sorted().prefix(5))"
                )
                if kept.count < rows.count { cuts += 1 }
            }
            // What the file holds now is what the next run starts from, for every feed.
            expected = stored
        }
        // Each budget write may evict and vacuum: under a sanitizer one takes about the longest delay,
        // so the runs together commit something, not one write per kill.
        #expect(totalAcks > 0, "the writer committed between kills")
        // How often the budget cut a feed between kills depends on how far each run got: on a loaded
        // machine every kill can land before the file passes its budget, so it is reported, not required.
        print("budget crash: \(Self.budgetKills) kills, \(totalAcks) acknowledged operations, \(cuts) feeds cut")
    }

    /// Folds a budget writer's log into each feed's rows as last acknowledged (its `KEPT` line, which
    /// comes just before the `ACK`), and returns the feeds whose last operation started but was not
    /// acknowledged (it may or may not have committed).
    func applyKept(_ log: [String], to expected: inout [String: [String]]) -> Set<String> {
        var inFlight: Set<String> = []
        var kept: [String: [String]] = [:]
        for line in log {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 2 else { continue }
            let (kind, feed) = (fields[0], fields[1])
            switch kind {
            case "START": inFlight.insert(feed)
            case "KEPT": kept[feed] = Array(fields.dropFirst(2))
            case "ACK":
                inFlight.remove(feed)
                expected[feed] = kept[feed] ?? []
            default: continue
            }
        }
        return inFlight
    }
}
