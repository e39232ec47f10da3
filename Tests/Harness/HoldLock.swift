import ArgumentParser
import Foundation
import PagedStore

extension PagedDBHarness {
    /// Holds the write lock of a cache for a while: the multi-process harness's other writer.
    struct HoldLock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hold-lock",
            abstract: "Hold a cache's write lock for a while (reliability harness).",
            discussion: """
                Begins a write transaction, prints LOCKED, waits, then commits and prints RELEASED.

                Example:
                  pagedb-harness hold-lock --db /tmp/cache.sqlite --milliseconds 2000
                """)

        @OptionGroup var database: HarnessDatabase
        @Option(name: .long, help: "How long to hold the lock.") var milliseconds = 1000

        func run() async throws {
            let queue = try DatabaseQueue(path: database.path, mode: .readWrite)
            try queue.write { store in
                _ = try store.ensureFeed(key: "hold-lock")
                FileHandle.standardOutput.write(Data("LOCKED\n".utf8))
                Thread.sleep(forTimeInterval: Double(milliseconds) / 1000)
            }
            FileHandle.standardOutput.write(Data("RELEASED\n".utf8))
        }
    }
}
