import Foundation
import PagedStore

/// Prints every snapshot of a feed as it arrives: its sequence, states, row count and change.
actor SnapshotPrinter {
    private let feed: Feed<DemoPost>
    private var printed = -1
    private var task: Task<Void, Never>?

    init(feed: Feed<DemoPost>) {
        self.feed = feed
    }

    /// Subscribes and starts printing.
    func start() async {
        let stream = await feed.snapshots
        task = Task {
            for await snapshot in stream { self.show(snapshot) }
        }
        await drain()
    }

    /// Stops printing and lets go of the feed's stream, so the cache can close cleanly.
    func stop() async {
        task?.cancel()
        await task?.value
        task = nil
    }

    /// Prints a heading for the next step, after every snapshot so far.
    func step(_ text: String) async {
        await drain()
        print("\n▸ \(text)")
    }

    /// Prints a heading, runs one step of the demo, and waits until its snapshots are printed.
    func run(_ heading: String, _ step: () async -> Void) async {
        await self.step(heading)
        await step()
        await drain()
    }

    /// Runs a step like ``run(_:_:)`` and says how many requests the server answered for it.
    func run(counting server: DemoServer, _ heading: String, _ step: () async -> Void) async {
        let before = await server.requests
        await run(heading, step)
        let count = await server.requests - before
        print("  (\(count) \(count == 1 ? "request" : "requests"))")
    }

    /// Waits until every snapshot the feed emitted so far has been printed.
    func drain() async {
        let target = await feed.snapshot.sequence
        while printed < target { try? await Task.sleep(for: .milliseconds(2)) }
    }

    private func show(_ snapshot: FeedSnapshot<DemoPost>) {
        printed = snapshot.sequence
        var line = "  #\(snapshot.sequence) \(ChangeReport.states(snapshot)) · \(snapshot.rows.count) rows"
        if !snapshot.gaps.isEmpty { line += " · gaps after rows \(snapshot.gaps.map(\.afterRow))" }
        print(line)
        for change in ChangeReport.lines(snapshot.change) { print("      \(change)") }
        if let top = snapshot.rows.first.flatMap({ $0 }), !snapshot.change.isEmpty {
            print("      top row: \(Terminal.escape(top.title)) (\(top.likes) likes)")
        }
        if let anchor = snapshot.anchor {
            let from = anchor.rowBefore.map { "row \($0) → " } ?? "scroll to "
            print(
                "      anchor: \(Terminal.escape(anchor.itemID)) stays on top of the screen: \(from)row \(anchor.rowAfter)"
            )
        }
    }
}
