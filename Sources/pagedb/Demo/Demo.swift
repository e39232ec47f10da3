import ArgumentParser
import Foundation
import PagedStore

extension PagedDB {
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a feed against a simulated server and print every snapshot.",
            discussion: """
                Creates (or reopens) a local cache file and runs a timeline feed against a built-in server \
                with latency, a failure and new posts arriving. Each snapshot is printed as it happens: its \
                state, activities, the change's index paths and the scroll anchor that keeps the reader's \
                row still. The story: a refresh that asks only for what is newer than the cached head, a \
                long absence that leaves a gap, and the gap filled from its bottom, where the reader left \
                off, removing a post deleted on the server meanwhile. Run it twice: the second run shows the cached rows before any fetch (offline first), \
                at the saved reading position, then merges the new posts on top.

                Examples:
                  pagedb demo
                  pagedb demo --db /tmp/demo.sqlite --latency-ms 300
                """)

        @Option(name: .long, help: ArgumentHelp("The cache file.", valueName: "path")) var db = "pagedb-demo.sqlite"
        @Flag(name: .long, help: "Delete the cache file first, to see a first launch again.") var reset = false
        @Option(name: .long, help: "The simulated server's latency per request.") var latencyMs = 120

        func validate() throws {
            guard (0...10_000).contains(latencyMs) else { throw ValidationError("--latency-ms must be 0 to 10000.") }
        }

        func run() async throws {
            if reset {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
            }
            let store = try FeedStore(path: db)
            let server = DemoServer(latency: .milliseconds(latencyMs))
            let policy = FeedPolicy(
                refreshOnOpen: .always, gapPolicy: .keepGap, refreshMode: .newerThanHead(maxPages: 2),
                keepsReadingPosition: true)
            let feed = try store.feed("timeline", source: server, policy: policy)
            let cached = await feed.snapshot
            let newest = cached.rows.first.flatMap { $0 }.flatMap { Int($0.id.dropFirst(5)) }
            // The server moved on while the app was closed: three posts newer than the cache.
            await server.startTimeline(newest: newest.map { $0 + 3 } ?? 45)

            print("Cache: \(db) — \(cached.rows.count == 0 ? "new" : "\(cached.rows.count) rows cached")")
            let printer = SnapshotPrinter(feed: feed)
            await printer.start()
            if cached.rows.count > 0 {
                await printer.step("Offline first: the cached rows above were shown before any fetch.")
            }

            await printer.run("Opening the feed: refresh on open.") { await feed.start() }
            await printer.run("Scrolling down: the next page loads by cursor.") { await feed.loadNextPage() }
            await printer.run("The server times out on the next request.") {
                await server.failNext(1)
                await feed.loadNextPage()
            }
            await printer.run("Retry.") { await feed.retry() }
            await printer.run("The reader scrolls to rows 5 to 12.") { await feed.setVisibleRows(5..<13) }
            await printer.run(
                counting: server, "Two posts are published; pull to refresh: only what is newer than the head."
            ) {
                await server.publish(2)
                await feed.refresh()
            }
            await printer.run(
                counting: server, "A long absence: 35 posts; pull to refresh: two newer pages (the limit), then a gap."
            ) {
                await server.publish(35)
                await feed.refresh()
            }
            await printer.run(
                counting: server,
                "Row 8, above the gap, is deleted on the server. Fill the gap from its bottom, where the reader "
                    + "left off, until it closes: the page that reaches row 8's neighbours removes it."
            ) {
                await server.delete(at: 8)
                for _ in 0..<5 {
                    guard let gap = await feed.snapshot.gaps.first else { break }
                    await feed.loadGap(gap, from: gap.canFillFromBottom ? .bottom : .top)
                }
            }
            try await feed.saveReadingPosition()
            await printer.drain()
            // Closing the last connection checkpoints the log: the file is left idle, without -wal.
            await printer.stop()

            print("\nDone. Run `pagedb demo` again to see the cache served first, then inspect it:")
            print("  pagedb feeds --db \(db)\n  pagedb show timeline --db \(db)")
        }
    }
}
