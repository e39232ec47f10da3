import ArgumentParser
import PagedStore

extension PagedDB {
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a cache: SQLite's integrity and foreign keys, and the engine's invariants.",
            discussion: """
                Exit 0 when clean; exit 1 with one line per violation (no id twice in a feed, unique sort \
                positions, row counts, page row counts, contiguous cursor chain, gaps between existing rows). \
                Opens the file read-only.

                Example:
                  pagedb verify --db app-cache.sqlite
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let queue = try database.openForReading()
            let (violations, feeds) = try queue.read { store in (try store.verify(), try store.feeds()) }
            if output.json {
                try Terminal.printJSON(
                    VerifyJSON(
                        ok: violations.isEmpty, feeds: feeds.count,
                        violations: violations.map { .init(feed: $0.feed, rule: $0.rule, detail: $0.detail) }))
            } else if violations.isEmpty {
                print("ok: \(feeds.count) feeds, \(feeds.reduce(0) { $0 + $1.rowCount }) rows, no violations")
            } else {
                for violation in violations { print(Terminal.escape(violation.description)) }
            }
            if !violations.isEmpty { throw ExitCode(CommandFailure.Status.violations.rawValue) }
        }
    }
}
