import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures
import PagedStoreTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PagedDB {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow a feed live and print each change another process writes to it.",
            discussion: """
                Prints the feed's rows and state once, then one line for every change that another process \
                (the app, an extension, pagedb apply or seed) commits: the rows inserted, deleted, reloaded \
                and moved as [section, row], the row count and the state, exactly as an open list of the app \
                receives them. A write that changed no row and no state prints nothing. A change the file \
                cannot name exactly (another process wrote while a write was being followed) is a full \
                reload. Runs until interrupted (Ctrl-C exits 0). Opens the file read-only, as an app \
                extension does: it never creates, migrates or writes it.

                A feed the file does not have fails with status 4, as show does; with --wait, watch waits \
                for a writer to create it. A feed no writer has loaded yet shows as waiting: watch never \
                fetches, so nothing is loading.

                With --json, one JSON document per line (fields: the article Using pagedb).

                Examples:
                  pagedb watch home --db app-cache.sqlite
                  pagedb watch home --db app-cache.sqlite --json | jq .rows
                  pagedb watch home --db app-cache.sqlite --wait
                """)

        @OptionGroup var database: DatabaseOptions
        @Flag(name: .long, help: "Print one JSON document per line instead of text.") var json = false
        @Flag(name: .long, help: "Wait for a feed the file does not have yet, instead of failing with status 4.")
        var wait = false
        @Argument(help: "The feed's key.") var feed: String

        func run() async throws {
            let store = try FeedStore(path: try database.path(), readOnly: true)
            if !wait { _ = try database.reading(feed: feed) { _, record in record } }
            // A read-only store refuses every fetch before it asks the source: this one never answers.
            let source = ScriptedSource<JSONItem>()
            let engine = try store.feed(
                feed, source: source, policy: FeedPolicy(refreshOnOpen: .never), codec: JSONItem.codec)
            let interrupt = Self.exitOnInterrupt()
            defer { interrupt.cancel() }
            var shown: String?
            for await snapshot in await engine.snapshots {
                // A write of the feed's row alone (a refresh that brought nothing new) is no change to show.
                let summary = "\(snapshot.rows.count) rows, \(snapshot.gaps.count) gaps, \(Self.states(snapshot))"
                if snapshot.sequence > 0, ChangeReport.lines(snapshot.change).isEmpty, summary == shown { continue }
                shown = summary
                try print(snapshot, summary: summary)
            }
        }

        /// The feed's content as a watcher can see it: a read-only store never fetches, so a feed no
        /// writer has loaded yet is waiting for one, not loading.
        static func content(_ snapshot: FeedSnapshot<JSONItem>) -> String {
            if case .initialLoading = snapshot.content { return "waiting" }
            return ChangeReport.name(snapshot.content)
        }

        /// `waiting, refresh idle, next page idle`: the states, with the content as ``content(_:)`` says.
        static func states(_ snapshot: FeedSnapshot<JSONItem>) -> String {
            ChangeReport.states(snapshot, content: content(snapshot))
        }

        /// Prints one snapshot: its change, then `summary` (its rows, gaps and state), as one line.
        private func print(_ snapshot: FeedSnapshot<JSONItem>, summary: String) throws {
            if json {
                try Terminal.printJSONLine(
                    WatchJSON(
                        feed: feed, sequence: snapshot.sequence, change: snapshot.change, rows: snapshot.rows.count,
                        gaps: snapshot.gaps.count,
                        state: .init(
                            content: Self.content(snapshot), refresh: ChangeReport.name(snapshot.refresh),
                            nextPage: ChangeReport.name(snapshot.nextPage))))
            } else {
                let lines = ChangeReport.lines(snapshot.change)
                let change =
                    snapshot.sequence == 0
                    ? "opened" : lines.isEmpty ? "no change in the rows" : lines.joined(separator: "; ")
                Terminal.printLine("\(Terminal.escape(feed)): \(change); \(summary)")
            }
        }

        /// Makes SIGINT end the process with status 0: watching ends by being interrupted, which is no
        /// failure.
        private static func exitOnInterrupt() -> any DispatchSourceSignal {
            signal(SIGINT, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
            // Every line went out unbuffered (``Terminal/printLine(_:)``): nothing is left to flush.
            source.setEventHandler { Foundation.exit(0) }
            source.resume()
            return source
        }
    }
}
