import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures

extension PagedDBHarness {
    /// The crash harness's victim: writes through the engine without end and acknowledges each commit
    /// on stdout, so that a driver can kill it at any instant and check what reached the disk.
    struct CrashWriter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "crash-writer",
            abstract: "Write to a cache without end, acknowledging each commit (reliability harness).",
            discussion: """
                Prints `START feed op` before each operation and `ACK feed op ids…` after its commit, where \
                the ids are the rows the operation added. Runs until killed, or for --operations.

                With --budget, the store keeps the file within that many bytes by itself, evicting on \
                the writer's own writes: the writer then uses six feeds, opens each only for one \
                operation (a closed feed may be evicted or trimmed), and prints `KEPT feed ids…`, the \
                feed's rows top first, just before each ACK.

                Example:
                  pagedb-harness crash-writer --db /tmp/crash.sqlite --seed 7
                """)

        @OptionGroup var database: HarnessDatabase
        @Option(name: .long, help: "Chooses the operations.") var seed: UInt64 = 1
        @Option(name: .long, help: "Stop after this many operations (default: never).") var operations: Int?
        @Flag(
            name: .long,
            help: "Also make optimistic edits whose server call refreshes and pages the feed before it ends.")
        var pendingEdits = false
        @Option(name: .long, help: "How many writes the file's change record keeps.")
        var changeRecordLimit = 1000
        @Option(
            name: .long,
            help: ArgumentHelp("Keep the file within this many bytes, evicting as the app would.", valueName: "bytes"))
        var budget: Int64?

        func validate() throws {
            if let budget, budget < 0 { throw ValidationError("--budget must be 0 or more.") }
        }

        func run() async throws {
            if let budget {
                try await runWithinBudget(budget)
                return
            }
            let store = try FeedStore(path: database.path, changeRecordLimit: changeRecordLimit)
            var random = SplitMix64(seed: seed)
            var feeds: [(feed: Feed<CrashItem>, server: HarnessServer<CrashItem>)] = []
            for index in 0..<3 {
                let server = HarnessServer(prefix: "f\(index)s\(seed)-", items: 200, pageSize: 20) {
                    CrashItem(id: $0, revision: 0)
                }
                let policy = FeedPolicy(
                    refreshOnOpen: .never, windowSize: 2000, firstScreenRows: 2000, maxRows: 400)
                feeds.append((try store.feed("feed\(index)", source: server, policy: policy), server))
            }
            var done = 0
            while operations.map({ done < $0 }) ?? true {
                let index = Int(random.next() % 3)
                let (feed, server) = feeds[index]
                let operations = ["next", "refresh", "edit", "insert", "trim"] + (pendingEdits ? ["optimistic"] : [])
                let operation = operations[Int(random.next() % UInt64(operations.count))]
                emit("START feed\(index) \(operation)")
                let snapshot = await feed.snapshot
                let before = Set(snapshot.rows.indices.compactMap { snapshot.rows.id(at: $0) })
                try await write(operation, feed, server, before: before, step: done, using: &random)
                let after = await feed.snapshot
                let added = after.rows.indices.compactMap { after.rows.id(at: $0) }.filter { !before.contains($0) }
                emit("ACK feed\(index) \(operation) \(added.joined(separator: " "))")
                done += 1
            }
        }

        /// The writer with a budget: six feeds, each opened for one operation and then let go, so that
        /// the store's automatic eviction may empty or trim any feed but the one it writes. The file
        /// outgrows the budget by the writer's own inserts, next pages and refreshes.
        private func runWithinBudget(_ maxBytes: Int64) async throws {
            let store = try FeedStore(
                path: database.path, changeRecordLimit: changeRecordLimit,
                budget: StoreBudget(maxBytes: maxBytes))
            var random = SplitMix64(seed: seed)
            let servers = (0..<6).map { index in
                HarnessServer(prefix: "f\(index)s\(seed)-", items: 200, pageSize: 20) { CrashItem(id: $0, revision: 0) }
            }
            let policy = FeedPolicy(refreshOnOpen: .never, windowSize: 2000, firstScreenRows: 2000, maxRows: 400)
            var done = 0
            while operations.map({ done < $0 }) ?? true {
                let index = Int(random.next() % UInt64(servers.count))
                let server = servers[index]
                let operation = ["next", "next", "refresh", "edit", "insert"][Int(random.next() % 5)]
                emit("START feed\(index) \(operation)")
                // Opened for this operation only: once it is let go, the budget may evict it.
                let feed = try store.feed("feed\(index)", source: server, policy: policy)
                let snapshot = await feed.snapshot
                let before = Set(snapshot.rows.indices.compactMap { snapshot.rows.id(at: $0) })
                try await write(operation, feed, server, before: before, step: done, using: &random)
                let after = await feed.snapshot
                let rows = after.rows.indices.compactMap { after.rows.id(at: $0) }
                emit("KEPT feed\(index) \(rows.joined(separator: " "))")
                emit("ACK feed\(index) \(operation) \(rows.filter { !before.contains($0) }.joined(separator: " "))")
                done += 1
            }
        }

        /// Writes `feed` by one operation of the harness; `before` is the ids it shows now.
        private func write(
            _ operation: String, _ feed: Feed<CrashItem>, _ server: HarnessServer<CrashItem>, before: Set<String>,
            step: Int, using random: inout SplitMix64
        ) async throws {
            switch operation {
            case "next": await feed.loadNextPage()
            case "refresh":
                await server.publish(Int(random.next() % 8) + 1)
                await feed.refresh()
            case "edit":
                if let id = before.first { _ = try await feed.update(CrashItem(id: id, revision: step)) }
            case "insert":
                try await feed.insert(CrashItem(id: "local\(seed)-\(step)", revision: 0), at: Int(random.next() % 5))
            case "optimistic":
                await optimisticEdit(feed, server, before: before, step: step, using: &random)
            default:
                try await feed.trim(maxRows: 100)
            }
        }

        /// An optimistic update, insert or remove whose server call writes the feed (new items and a
        /// refresh, a next page) before it succeeds or fails, so that kills land on those writes
        /// while the edit is pending. An item that has an edit pending already is refused: skipped.
        private func optimisticEdit(
            _ feed: Feed<CrashItem>, _ server: HarnessServer<CrashItem>, before: Set<String>, step: Int,
            using random: inout SplitMix64
        ) async {
            let fails = random.next() % 2 == 0
            let count = Int(random.next() % 8) + 1
            let call: @Sendable (CrashItem) async throws -> Void = { _ in
                await server.publish(count)
                await feed.refresh()
                await feed.loadNextPage()
                await feed.refresh()
                if fails { throw CancellationError() }
            }
            let id = before.sorted().first
            do {
                switch random.next() % 3 {
                case 0:
                    if let id { try await feed.edit(id: id, { $0.revision += 1_000_000 }, commit: call) }
                case 1: try await feed.insert(CrashItem(id: "pending\(seed)-\(step)", revision: 0), at: 2, commit: call)
                default:
                    if let id { try await feed.remove(id: id, commit: call) }
                }
            } catch {
                // A refused second edit or a failed call: the harness goes on.
            }
        }

        private func emit(_ line: String) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }
}

/// The crash writer's item.
struct CrashItem: FeedItem, Codable {
    let id: String
    var revision: Int
}
