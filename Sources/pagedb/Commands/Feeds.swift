import ArgumentParser
import PagedStore

extension PagedDB {
    struct Feeds: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the feeds in a cache with their rows, cursors, ages and states.",
            discussion: """
                Opens the file read-only: it is never created or changed.

                Example:
                  pagedb feeds --db app-cache.sqlite
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let queue = try database.openForReading()
            let feeds = try queue.read { store in
                try store.feeds().map { feed in
                    (feed, try store.pages(of: feed).count, try store.gaps(of: feed).count)
                }
            }
            if output.json {
                try Terminal.printJSON(feeds.map { FeedSummaryJSON($0, pages: $1, gaps: $2) })
                return
            }
            guard !feeds.isEmpty else { return print("No feeds in this cache.") }
            print(
                Terminal.table(
                    [
                        "FEED", "ROWS", "PAGES", "GAPS", "NEWEST", "OLDEST", "END", "REFRESHED", "STATE",
                        "LAST ERROR",
                    ],
                    feeds.map { feed, pages, gaps in
                        [
                            output.cell(feed.key, 24), "\(feed.rowCount)", "\(pages)", "\(gaps)",
                            output.cell(feed.newestCursor, 14), output.cell(feed.oldestCursor, 14),
                            feed.endReached ? "yes" : "no", Terminal.age(feed.lastRefreshAt),
                            feed.storedContentState,
                            output.cell(feed.lastError, 40),
                        ]
                    }))
        }
    }
}
