import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension PagedDBHarness {
    /// The outbox crash harness's victim: queues edits by kind that a real HTTP server receives, and
    /// acknowledges each one once it is durable, so that a driver can kill it at any instant and check
    /// that no acknowledged edit is lost and none is applied twice.
    struct OutboxWriter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "outbox-writer",
            abstract: "Queue edits for a server and settle them, acknowledging each (reliability harness).",
            discussion: """
                Opens the feed `outbox` (items from an in-process list), registers handlers that POST each \
                queued edit to --server with its idempotency key, and makes random refreshes, next pages, \
                resumes (connectivity back) and queued updates, inserts and removals. Prints `OPENED` \
                once the store is open, `QUEUED key kind item mark` after each enqueue returns (the edit \
                is then in the file), \
                `SETTLED key outcome` when an edit leaves the outbox, and `EMPTY` once nothing is \
                pending after the last operation (with --operations 0, a replay, after reading the list \
                again: a refresh and every next page); then it exits. Without --operations it never ends.

                Example:
                  pagedb-harness outbox-writer --db /tmp/outbox.sqlite --server http://127.0.0.1:8080/mutations --seed 7
                """)

        @OptionGroup var database: HarnessDatabase
        @Option(name: .long, help: "The URL each queued edit is POSTed to.") var server: String
        @Option(name: .long, help: "Chooses the operations.") var seed: UInt64 = 1
        @Option(name: .long, help: "Stop after this many operations and wait until nothing is pending.")
        var operations: Int?
        @Option(name: .long, help: "The feed's cache version: a new one clears the rows of the one before.")
        var cacheVersion = 0

        func run() async throws {
            guard let endpoint = URL(string: server) else {
                throw ValidationError("--server is not a URL: \(server)")
            }
            let store = try FeedStore(path: database.path)
            // Short waits: the harness's server fails a send only once, and the test waits for the replay.
            await store.outbox.setRetryDelays(first: .milliseconds(20), maximum: .milliseconds(500))
            let outcomes = OutcomeLog()
            for kind in OutboxWriterKind.allCases {
                await store.outbox.register(kind.rawValue, as: OutboxMark.self) { edit in
                    let outcome = try await Self.post(edit, kind: kind, to: endpoint)
                    await outcomes.record(outcome, for: edit.idempotencyKey)
                    return outcome
                }
            }
            // The same list in every run, whatever the seed: a relaunch's refresh must not drop the rows
            // the killed writer's edits were about.
            let list = HarnessServer(prefix: "o", items: 60, pageSize: 20) { OutboxItem(id: $0, mark: "") }
            // No row limit: a row trimmed away could not show whether a rejected removal came back.
            let policy = FeedPolicy(
                refreshOnOpen: .never, windowSize: 2000, firstScreenRows: 2000, cacheVersion: cacheVersion)
            let feed = try store.feed("outbox", source: list, policy: policy)
            let watcher = Task { await Self.reportSettled(store.outbox, outcomes) }
            emit("OPENED")
            var random = SplitMix64(seed: seed)
            var done = 0
            while operations.map({ done < $0 }) ?? true {
                await step(feed, store.outbox, number: done, using: &random)
                done += 1
            }
            for await status in await store.outbox.states where status.count == 0 { break }
            watcher.cancel()
            if operations == 0 {
                // The replay reads the list again, as the app's next look does: a rejected removal
                // whose neighbours had both gone is put back by the page that lists it, not before.
                await feed.refresh()
                var pages = 0
                while await feed.snapshot.nextPage != .endReached, pages < 100 {
                    // A next page that failed before the kill waits for a retry: loading does nothing.
                    if case .failed = await feed.snapshot.nextPage {
                        await feed.retry()
                    } else {
                        await feed.loadNextPage()
                    }
                    pages += 1
                }
            }
            emit("EMPTY")
        }

        /// One random operation: a page, or a queued edit acknowledged with its key.
        private func step(
            _ feed: Feed<OutboxItem>, _ outbox: PagedStore.Outbox, number: Int, using random: inout SplitMix64
        ) async {
            let snapshot = await feed.snapshot
            let ids = snapshot.rows.indices.compactMap { snapshot.rows.id(at: $0) }
            let mark = "s\(seed)-\(number)"
            let argument = OutboxMark(mark: mark)
            do {
                switch random.next() % 7 {
                case 6:
                    // Connectivity back (it flaps): every edit waiting for its retry's delay goes now.
                    await outbox.resume()
                case 0: await feed.loadNextPage()
                case 1: await feed.refresh()
                case 2, 3:
                    guard let id = ids.randomElement(using: &random) else { return }
                    let key = try await feed.enqueue(OutboxWriterKind.update.rawValue, id: id, argument: argument) {
                        $0.mark = mark
                    }
                    acknowledge(key, .update, id, mark)
                case 4:
                    let id = "local\(seed)-\(number)"
                    let row = Int(random.next() % 5)
                    let key = try await feed.enqueue(
                        OutboxWriterKind.insert.rawValue, inserting: OutboxItem(id: id, mark: mark), at: row,
                        argument: argument)
                    acknowledge(key, .insert, id, mark)
                default:
                    // Only the list's own items: a local insert confirmed and then removed would come back
                    // or not depending on the list, which the check cannot tell.
                    guard let id = ids.filter({ !$0.hasPrefix("local") }).randomElement(using: &random) else { return }
                    let key = try await feed.enqueue(
                        OutboxWriterKind.remove.rawValue, removing: id, argument: argument)
                    acknowledge(key, .remove, id, mark)
                }
            } catch {
                // Nothing it makes should be refused (an edit of a removed item queues nothing); one that is
                // is told, and the harness goes on with its next step.
                FileHandle.standardError.write(Data("REFUSED \(error)\n".utf8))
            }
        }

        /// Prints an enqueue's acknowledgement, if it queued anything.
        private func acknowledge(_ key: UUID?, _ kind: OutboxWriterKind, _ item: String, _ mark: String) {
            guard let key else { return }
            emit("QUEUED \(key.uuidString) \(kind.rawValue) \(item) \(mark)")
        }

        /// Prints `SETTLED key outcome` for every edit that leaves the outbox, until cancelled.
        private static func reportSettled(_ outbox: PagedStore.Outbox, _ outcomes: OutcomeLog) async {
            var pending: Set<UUID> = []
            for await status in await outbox.states {
                let now = Set(status.edits.map(\.idempotencyKey))
                for key in pending.subtracting(now).sorted(by: { $0.uuidString < $1.uuidString }) {
                    let outcome = await outcomes.outcome(for: key) ?? "unknown"
                    FileHandle.standardOutput.write(Data("SETTLED \(key.uuidString) \(outcome)\n".utf8))
                }
                pending = now
            }
        }

        /// POSTs one edit with its idempotency key and maps the answer: 2xx confirmed, 409, 429 and 5xx
        /// retryable (with the server's `Retry-After`), any other status rejected.
        private static func post(
            _ edit: OutboxEdit<OutboxMark>, kind: OutboxWriterKind, to endpoint: URL
        ) async throws -> OutboxOutcome {
            var request = URLRequest(url: endpoint)
            request.httpMethod = "POST"
            request.setValue(edit.idempotencyKey.uuidString, forHTTPHeaderField: "Idempotency-Key")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONEncoder().encode([
                "kind": kind.rawValue, "item": edit.itemID, "mark": edit.argument.mark,
            ])
            let (_, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            switch status {
            case 200..<300: return .confirmed
            case 409, 429, 500..<600:
                let header = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After")
                return .retryable("HTTP \(status)", retryAfterHeader: header)
            default: return .rejected(reason: "HTTP \(status)")
            }
        }

        private func emit(_ line: String) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }
}

/// The outbox writer's edit kinds, one handler each.
enum OutboxWriterKind: String, CaseIterable, Sendable {
    case update, insert, remove
}

/// The outbox writer's item: `mark` names the edit that last changed it (empty as the list has it).
struct OutboxItem: FeedItem, Codable {
    let id: String
    var mark: String
}

/// The argument every outbox writer edit is queued with: the mark it writes.
struct OutboxMark: Codable, Sendable {
    let mark: String
}

/// What each handler answered, by key, so that `SETTLED` lines can say how an edit ended.
actor OutcomeLog {
    private var outcomes: [UUID: String] = [:]

    /// Records the latest outcome of the edit with `key`.
    func record(_ outcome: OutboxOutcome, for key: UUID) {
        switch outcome {
        case .confirmed: outcomes[key] = "confirmed"
        case .rejected: outcomes[key] = "rejected"
        case .retryable: outcomes[key] = "retryable"
        }
    }

    /// The latest outcome of the edit with `key`, if a handler of this process sent it.
    func outcome(for key: UUID) -> String? { outcomes[key] }
}
