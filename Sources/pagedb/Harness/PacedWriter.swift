import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures

extension PagedDB {
    /// The live-following benchmark's other process: inserts one item on top of a feed at a steady
    /// pace, each carrying the wall-clock instant its write began, with idle pauses now and then so
    /// that an observer's backed-off look is measured too.
    struct PacedWriter: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "paced-writer",
            abstract: "Insert timestamped items on top of a feed at a steady pace (benchmark harness).",
            discussion: """
                Writes --commits items through the engine's local insert, one transaction each, waiting \
                --interval-ms between them and --pause-ms (plus up to --pause-jitter-ms, so that a pause ends at \
                any point of an observer's backed-off wait) after every --pause-every-th. Prints DONE and the \
                count at the end.

                Example:
                  pagedb paced-writer --db /tmp/live.sqlite --feed live --commits 1000
                """,
            shouldDisplay: false)

        @OptionGroup var database: DatabaseOptions
        @Option(name: .long, help: "The feed's key.") var feed = "live"
        @Option(name: .long, help: "How many items to insert.") var commits = 1000
        @Option(name: .long, help: "Milliseconds between two commits.") var intervalMs = 5
        @Option(name: .long, help: "Pause after every this many commits (0: never).") var pauseEvery = 50
        @Option(name: .long, help: "Milliseconds of each idle pause, at the least.") var pauseMs = 300
        @Option(name: .long, help: "Up to this many milliseconds more on each pause, at random.") var pauseJitterMs =
            250
        @Option(name: .long, help: "A prefix for the items' ids.") var prefix = "w"

        func validate() throws {
            guard commits >= 0, intervalMs >= 0, pauseEvery >= 0, pauseMs >= 0, pauseJitterMs >= 0 else {
                throw ValidationError("The counts and durations must be 0 or more.")
            }
        }

        func run() async throws {
            let store = try FeedStore(path: try database.path())
            let writer = try store.feed(
                feed, source: LiveBenchItem.silentSource, policy: FeedPolicy(refreshOnOpen: .never))
            var random = SplitMix64(seed: 1)
            for number in 0..<commits {
                try await writer.insert(LiveBenchItem(id: "\(prefix)\(number)", writtenAt: LiveBenchItem.now()), at: 0)
                let pauses = pauseEvery > 0 && (number + 1) % pauseEvery == 0
                let jitter = pauses ? Int(random.next() % UInt64(pauseJitterMs + 1)) : 0
                try await Task.sleep(for: .milliseconds(pauses ? pauseMs + jitter : intervalMs))
            }
            store.close()
            FileHandle.standardOutput.write(Data("DONE \(commits)\n".utf8))
        }
    }
}
