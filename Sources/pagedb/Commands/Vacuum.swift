import ArgumentParser
import Foundation
import PagedStore

extension PagedDB {
    struct Vacuum: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Shrink a cache file: give its free pages back to the file system.",
            discussion: """
                A file with incremental auto-vacuum (created by a store with a budget) gives its free pages \
                back in one short write. An older file is rewritten whole once (VACUUM), which converts it: \
                that holds the write lock while it copies and needs free disk space for a copy of the \
                file. --full rewrites any file whole, which also packs its pages tightly. Apps writing \
                the file meanwhile wait for the lock (up to their busy timeout).

                With --budget, it first evicts as a store with that budget does (whole feeds opened \
                longest ago, then the oldest pages of the largest feeds; never a pending edit), in one \
                transaction that records each feed's change, so open lists follow it.

                Examples:
                  pagedb vacuum --db app-cache.sqlite
                  pagedb vacuum --db app-cache.sqlite --full
                  pagedb vacuum --db app-cache.sqlite --budget 20000000
                """)

        @OptionGroup var database: DatabaseOptions
        @Flag(name: .long, help: "Rewrite the whole file (VACUUM), even when it is incremental.")
        var full = false
        @Option(
            name: .long,
            help: ArgumentHelp("Evict first, as a store with a budget of this many bytes does.", valueName: "bytes"))
        var budget: Int64?

        func validate() throws {
            if let budget, budget < 0 { throw ValidationError("--budget must be 0 or more.") }
        }

        func run() async throws {
            let path = try database.path()
            guard FileManager.default.fileExists(atPath: path) else {
                throw CommandFailure(status: .missingFile, message: "No database at \(Terminal.escape(path))")
            }
            let queue = try database.openForWriting()
            let before = FileSizes(path: path)
            let was = try queue.withoutTransaction { store in try store.fileSpace() }
            if let budget {
                let store = try FeedStore(path: path, budget: StoreBudget(maxBytes: budget))
                for eviction in try store.keepWithinBudget() where eviction.feedKey != nil {
                    print("\(eviction.kind.rawValue) \(Terminal.escape(eviction.feedKey ?? "")): \(eviction.rows) rows")
                }
                store.close()
            }
            let now = try queue.withoutTransaction { store in
                if full || !was.isIncremental {
                    Terminal.note("Rewriting \(Terminal.escape(path)) whole (VACUUM)…")
                    try store.vacuum()
                } else {
                    try store.releaseFreePages()
                }
                return try store.fileSpace()
            }
            queue.close()
            let after = FileSizes(path: path)
            print(
                "Shrank \(Terminal.escape(path)) from \(FileSizes.text(before.file)) to \(FileSizes.text(after.file)) "
                    + "(\(was.pageCount) pages to \(now.pageCount)).")
            if !was.isIncremental { print("The file now uses incremental auto-vacuum.") }
        }
    }
}
