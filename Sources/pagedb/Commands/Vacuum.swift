import ArgumentParser
import Foundation
import PagedStore

extension PagedDB {
    struct Vacuum: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Shrink a cache file: give its free pages back to the file system.",
            discussion: """
                A file with incremental auto-vacuum (every file PagedStore creates) gives its free pages \
                back in one short write. An older file is rewritten whole once (VACUUM), which converts it: \
                that holds the write lock while it copies and needs free disk space for a copy of the \
                file. --full rewrites any file whole, which also packs its pages tightly. Apps writing \
                the file meanwhile wait for the lock (up to their busy timeout).

                Examples:
                  pagedb vacuum --db app-cache.sqlite
                  pagedb vacuum --db app-cache.sqlite --full
                """)

        @OptionGroup var database: DatabaseOptions
        @Flag(name: .long, help: "Rewrite the whole file (VACUUM), even when it is incremental.")
        var full = false

        func run() async throws {
            let path = try database.path()
            guard FileManager.default.fileExists(atPath: path) else {
                throw CommandFailure(status: .missingFile, message: "No database at \(Terminal.escape(path))")
            }
            let queue = try database.openForWriting()
            let before = FileSizes(path: path)
            let (was, now) = try queue.withoutTransaction { store in
                let was = try store.fileSpace()
                if full || !was.isIncremental {
                    Terminal.note("Rewriting \(Terminal.escape(path)) whole (VACUUM)…")
                    try store.vacuum()
                } else {
                    try store.releaseFreePages()
                }
                return (was, try store.fileSpace())
            }
            queue.close()
            let after = FileSizes(path: path)
            print(
                "Shrank \(Terminal.escape(path)) from \(FileSizes.text(before.file)) to \(FileSizes.text(after.file)) "
                    + "(\(was.pageCount) pages to \(now.pageCount); \(was.freePages) were free).")
            if !was.isIncremental { print("The file now uses incremental auto-vacuum.") }
        }
    }
}
