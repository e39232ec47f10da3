import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The outbox crash harness: `pagedb-harness outbox-writer` queues edits that a real loopback server
/// receives, and is killed with SIGKILL at random instants; a last relaunch replays what is left.
///
/// `PAGEDSTORE_OUTBOX_KILLS=N` sets the number of kills (default 10; RELIABILITY.md's long mode is
/// 100). The same file and server serve every kill, so each relaunch also replays the edits the
/// previous writer left queued.
@Suite(.limit(minutes: 15)) struct OutboxCrashTests {
    static var kills: Int {
        ProcessInfo.processInfo.environment["PAGEDSTORE_OUTBOX_KILLS"].flatMap(Int.init) ?? 10
    }

    /// One `QUEUED key kind item mark` line: an edit the writer acknowledged as durable.
    struct Queued {
        let key: String
        let kind: String
        let item: String
        let mark: String
    }

    @Test func everyQueuedEditReachesTheServerOnceAndEveryRejectedOneIsRolledBackAfterKills() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("outbox.sqlite")
        let server = try LoopbackServer()
        let endpoint = server.url("mutations").absoluteString
        var random = SystemRandomNumberGenerator()
        var queued: [Queued] = []
        for kill in 0..<Self.kills {
            // Counted from the writer's first queued edit: one starved after it opened the file would
            // otherwise be killed before it queued anything, in every kill of a loaded machine.
            let delay = Duration.milliseconds(Int.random(in: 20...200, using: &random))
            // Every fourth relaunch is of an app whose new model clears the old rows; now and then a
            // row under a queued edit no longer decodes. Their queued edits must still go.
            if kill % 3 == 2 { try Self.spoilARowUnderAQueuedEdit(in: db) }
            let log = try await KilledRun.lines(
                of: [
                    "outbox-writer", "--db", db, "--server", endpoint, "--seed", "\(kill + 1)",
                    "--cache-version", "\(kill / 4)",
                ], after: delay, from: "QUEUED")
            queued += log.compactMap(Self.queued)
            let violations = try DatabaseQueue(path: db).read { try $0.verify() }
            #expect(violations.isEmpty, "kill \(kill): \(violations)")
        }
        // The relaunch that only replays: it exits once the outbox is empty.
        let replay = try await HarnessBinary.run(
            [
                "outbox-writer", "--db", db, "--server", endpoint, "--operations", "0", "--cache-version",
                "\(Self.kills / 4 + 1)",
            ], timeout: 300)
        try #require(replay.status == 0 && replay.stdout.contains("EMPTY"), "the replay settles: \(replay.stderr)")

        let log = try await server.mutationLog()
        // The edits made on an item whose insert was rejected go with it, never sent: the server
        // never had the item.
        let rejectedInserts = Set(log.values.filter { $0.kind == "insert" && $0.rejected }.map(\.item))
        let unsent = queued.filter { log[$0.key] == nil }
        let lost = unsent.filter { !rejectedInserts.contains($0.item) }
        #expect(lost.isEmpty, "queued edits the server never received: \(lost.prefix(5).map(\.key))")
        for edit in queued {
            guard let delivery = log[edit.key] else { continue }
            #expect(delivery.applied != delivery.rejected, "\(edit.key) is either applied once or rejected")
        }
        // An item's edits reach the server in the order they were made, each after the last delivery
        // of the one before it (which had settled).
        let byItem = Dictionary(grouping: queued.compactMap { edit in log[edit.key].map { (edit, $0) } }) {
            $0.0.item
        }
        for (item, edits) in byItem {
            for (earlier, later) in zip(edits, edits.dropFirst())
            where later.1.firstDelivery < earlier.1.lastDelivery {
                Issue.record("\(item): \(later.0.key) was sent before \(earlier.0.key) settled")
            }
        }
        let queue = try DatabaseQueue(path: db)
        #expect(try queue.read { try $0.queuedEdits() }.isEmpty, "the outbox is empty")
        let checkedRemovals = try checkRejectedEditsAreRolledBack(log, in: queue)
        let verify = try await PagedDBBinary.run(["verify", "--db", db])
        #expect(verify.status == 0, "pagedb verify: \(verify.stdout) \(verify.stderr)")

        let deliveries = log.values.reduce(0) { $0 + $1.deliveries }
        let duplicates = log.values.reduce(0) { $0 + $1.duplicates }
        let retried = log.values.reduce(0) { $0 + $1.retryable }
        let rejected = log.values.filter(\.rejected).count
        let unacknowledged = Set(log.keys).subtracting(queued.map(\.key)).count
        print(
            "outbox crash: \(Self.kills) kills, \(queued.count) edits queued, \(log.count) keys received "
                + "(\(unacknowledged) sent before their QUEUED line), \(deliveries) deliveries, "
                + "\(duplicates) duplicates deduplicated by key, \(retried) retryable answers, \(rejected) rejected "
                + "(\(checkedRemovals) rejected removals checked back), \(unsent.count - lost.count) dropped with "
                + "their rejected insert, lost \(lost.count)")
        #expect(queued.count > Self.kills, "the writer queued edits between kills")
    }

    /// Checks that no edit the server rejected shows in the file: a rejected update's mark is on no
    /// row, a rejected insert's item is gone, and a rejected removal's item is back (when it was the
    /// item's last removal). Returns how many removals it checked.
    func checkRejectedEditsAreRolledBack(
        _ log: [String: MutationDelivery], in queue: DatabaseQueue
    ) throws -> Int {
        let rows = try queue.read { store -> [String: String] in
            guard let feed = try store.feed(key: "outbox") else { return [:] }
            let items = try store.window(of: feed, from: .top, limit: Int.max)
            return items.reduce(into: [:]) { rows, item in
                rows[item.itemID] = (try? JSONDecoder().decode([String: String].self, from: item.payload))?["mark"]
            }
        }
        let marks = Set(rows.values)
        // An item's last removal: a later one, confirmed, may have removed it for good (an item's
        // edits reach the server in order, so the order of first deliveries is theirs).
        var lastRemoval: [String: Int] = [:]
        for delivery in log.values where delivery.kind == "remove" {
            lastRemoval[delivery.item] = max(lastRemoval[delivery.item] ?? 0, delivery.order)
        }
        var checkedRemovals = 0
        for (key, delivery) in log where delivery.rejected {
            switch delivery.kind {
            case "update":
                #expect(!marks.contains(delivery.mark), "\(key): the rejected update \(delivery.mark) still shows")
            case "insert":
                #expect(rows[delivery.item] == nil, "\(key): the rejected insert \(delivery.item) still shows")
            case "remove":
                guard lastRemoval[delivery.item] == delivery.order else { continue }
                checkedRemovals += 1
                #expect(rows[delivery.item] != nil, "\(key): the rejected removal of \(delivery.item) is not undone")
            default:
                Issue.record("\(key): a delivery of kind \(delivery.kind.debugDescription)")
            }
        }
        return checkedRemovals
    }

    /// The edit a `QUEUED` line acknowledges, or nil for any other line.
    /// Makes the payload of a row under a queued edit one the item's model cannot decode, as a file
    /// written by another version of the app.
    static func spoilARowUnderAQueuedEdit(in db: String) throws {
        guard FileManager.default.fileExists(atPath: db) else { return }
        let connection = try Connection(path: db, mode: .readWrite)
        try connection.execute(
            """
            UPDATE item SET payload = '{"nope":1}' WHERE (feed_id, item_id) = (
                SELECT edit.feed_id, edit.item_id FROM pending_edit AS edit JOIN item
                ON item.feed_id = edit.feed_id AND item.item_id = edit.item_id
                WHERE edit.outbox_kind IS NOT NULL AND edit.detached = 0 LIMIT 1)
            """)
    }

    static func queued(_ line: String) -> Queued? {
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count == 5, fields[0] == "QUEUED" else { return nil }
        return Queued(key: fields[1], kind: fields[2], item: fields[3], mark: fields[4])
    }
}
