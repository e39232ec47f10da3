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
                receives them. A change the file cannot name exactly (another process wrote while a write \
                was being followed) is a full reload. Runs until interrupted (Ctrl-C exits 0). Opens the \
                file read-only, as an app extension does: it never creates, migrates or writes it, and a \
                feed the file does not have yet shows as empty until a writer creates it.

                With --json, one JSON document per line (fields: the article Using pagedb).

                Examples:
                  pagedb watch home --db app-cache.sqlite
                  pagedb watch home --db app-cache.sqlite --json | jq .rows
                """)

        @OptionGroup var database: DatabaseOptions
        @Flag(name: .long, help: "Print one JSON document per line instead of text.") var json = false
        @Argument(help: "The feed's key.") var feed: String

        func run() async throws {
            let store = try FeedStore(path: try database.path(), readOnly: true)
            // A read-only store refuses every fetch before it asks the source: this one never answers.
            let source = ScriptedSource<JSONItem>()
            let engine = try store.feed(
                feed, source: source, policy: FeedPolicy(refreshOnOpen: .never), codec: JSONItem.codec)
            let interrupt = Self.exitOnInterrupt()
            defer { interrupt.cancel() }
            for await snapshot in await engine.snapshots {
                try print(snapshot)
            }
        }

        /// Prints one snapshot: its change, rows and state, as one line.
        private func print(_ snapshot: FeedSnapshot<JSONItem>) throws {
            let state = ChangeReport.states(snapshot)
            if json {
                try Terminal.printJSONLine(
                    WatchJSON(
                        feed: feed, sequence: snapshot.sequence, change: snapshot.change, rows: snapshot.rows.count,
                        gaps: snapshot.gaps.count,
                        state: .init(
                            content: ChangeReport.name(snapshot.content), refresh: ChangeReport.name(snapshot.refresh),
                            nextPage: ChangeReport.name(snapshot.nextPage))))
            } else {
                let lines = ChangeReport.lines(snapshot.change)
                let change =
                    snapshot.sequence == 0
                    ? "opened" : lines.isEmpty ? "no change in the rows" : lines.joined(separator: "; ")
                Terminal.printLine(
                    "\(Terminal.escape(feed)): \(change); \(snapshot.rows.count) rows, \(snapshot.gaps.count) gaps, \(state)"
                )
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
