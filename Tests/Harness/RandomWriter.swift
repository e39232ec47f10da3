import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures
import PagedStoreTesting

extension PagedDBHarness {
    /// The live-following harness's other process: one feed written by a random sequence of every
    /// kind of operation against a simulated server, while another process observes the feed.
    struct RandomWriter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "random-writer",
            abstract: "Write one feed with random operations of every kind (reliability harness).",
            discussion: """
                Refreshes, loads next pages, fills gaps, inserts, updates and removes rows, makes optimistic \
                edits whose server call writes the feed before it succeeds or fails, trims and scrolls, \
                against a simulated server whose list grows on top and changes, pausing up to --max-pause-ms \
                after each. Items are {"id", \
                "revision"}. Prints DONE with the operations made and the busy errors met.

                Example:
                  pagedb-harness random-writer --db /tmp/live.sqlite --operations 300 --seed 7
                """)

        @OptionGroup var database: HarnessDatabase
        @Option(name: .long, help: "The feed's key.") var feed = "home"
        @Option(name: .long, help: "How many operations to make.") var operations = 300
        @Option(name: .long, help: "Chooses the operations.") var seed: UInt64 = 1
        @Option(
            name: .long,
            help:
                "Wait up to this many milliseconds (chosen at random) after each operation, so an observer sees its steps."
        )
        var maxPauseMs = 0
        @Option(name: .long, help: "How many writes the file's change record keeps.")
        var changeRecordLimit = 1000

        /// The policy the harness and its observer open the feed with: every row in the window, so
        /// that an observer can check each change against all the rows before it.
        static let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 100_000, firstScreenRows: 100_000)

        func validate() throws {
            guard operations >= 0, maxPauseMs >= 0 else {
                throw ValidationError("--operations and --max-pause-ms must be 0 or more.")
            }
        }

        func run() async throws {
            let store = try FeedStore(path: database.path, changeRecordLimit: changeRecordLimit)
            let server = HarnessServer(prefix: "s\(seed)-", items: 60, pageSize: 10) {
                RandomEntry(id: $0, revision: 0)
            }
            let writer = try store.feed(feed, source: server, policy: Self.policy)
            let busy = BusyCount()
            let events = await writer.events
            let counting = Task {
                for await event in events where event.kind == .failed && event.error?.storageKind == .busy {
                    busy.add()
                }
            }
            var random = SplitMix64(seed: seed)
            for step in 0..<operations {
                do {
                    try await operate(writer, server, step: step, using: &random)
                } catch let error as StorageError where error.kind == .busy {
                    busy.add()
                } catch {
                    // An edit of an item with an edit pending, or a row another writer removed: the
                    // sequence goes on, as an app would.
                }
                if maxPauseMs > 0 {
                    try await Task.sleep(for: .microseconds(random.next() % UInt64(maxPauseMs * 1000)))
                }
            }
            await writer.waitUntilIdle()
            counting.cancel()
            store.close()
            FileHandle.standardOutput.write(Data("DONE operations=\(operations) busy=\(busy.value)\n".utf8))
        }

        private func operate(
            _ feed: Feed<RandomEntry>, _ server: HarnessServer<RandomEntry>, step: Int, using random: inout SplitMix64
        ) async throws {
            let snapshot = await feed.snapshot
            let ids = snapshot.rows.loadedRange.compactMap { snapshot.rows.id(at: $0) }
            let someID = ids.isEmpty ? nil : ids[Int(random.next() % UInt64(ids.count))]
            switch random.next() % 11 {
            case 0:
                await server.publish(Int(random.next() % 12) + 1)
                await feed.refresh()
            case 1:
                let index = Int(random.next() % 30)
                if random.next() % 3 == 0 {
                    await server.remove(at: index)
                } else {
                    await server.revise(at: index) { $0.revision = ($0.revision ?? 0) + 1 }
                }
                await feed.refresh()
            case 2: await feed.loadNextPage()
            case 3:
                if let gap = snapshot.gaps.first {
                    await feed.loadGap(gap, from: random.next() % 2 == 0 ? .top : .bottom)
                } else {
                    await feed.loadNextPage()
                }
            case 4:
                let row = Int(random.next() % UInt64(snapshot.rows.count + 1))
                try await feed.insert(RandomEntry(id: "local\(seed)-\(step)", revision: 0), at: row)
            case 5: if let someID { _ = try await feed.update(RandomEntry(id: someID, revision: step)) }
            case 6: if let someID { _ = try await feed.remove(id: someID) }
            case 7: try await optimisticEdit(feed, server, id: someID, step: step, using: &random)
            case 8: _ = try await feed.trim(maxRows: Int(random.next() % 60) + 10)
            case 9:
                if snapshot.rows.count > 0 { await feed.rowDidAppear(Int(random.next() % UInt64(snapshot.rows.count))) }
            default: await feed.retry()
            }
        }

        /// An optimistic update, insert or removal whose server call publishes and refreshes the feed
        /// before it succeeds or fails (a rollback).
        private func optimisticEdit(
            _ feed: Feed<RandomEntry>, _ server: HarnessServer<RandomEntry>, id: String?, step: Int,
            using random: inout SplitMix64
        ) async throws {
            let fails = random.next() % 2 == 0
            let count = Int(random.next() % 5) + 1
            let call: @Sendable (RandomEntry) async throws -> Void = { _ in
                await server.publish(count)
                await feed.refresh()
                if fails { throw CancellationError() }
            }
            switch random.next() % 3 {
            case 0:
                if let id { try await feed.edit(id: id, { $0.revision = 1_000_000 + step }, commit: call) }
            case 1: try await feed.insert(RandomEntry(id: "posted\(seed)-\(step)", revision: 0), at: 0, commit: call)
            default: if let id { _ = try await feed.remove(id: id, commit: call) }
            }
        }
    }
}

/// The random writer's item: what `pagedb apply` and `seed` write too, so the revision may be absent.
struct RandomEntry: FeedItem, Codable, Equatable {
    let id: String
    var revision: Int?
}

/// The busy errors a harness met, counted from its events and its calls.
final class BusyCount: @unchecked Sendable {
    // @unchecked: `count` is guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
