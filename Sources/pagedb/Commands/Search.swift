import ArgumentParser
import Foundation
import PagedStore

extension PagedDB {
    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Search the cached items of searchable feeds, as the app's search does.",
            discussion: """
                A feed is searchable when its item type declares searchable fields; the file records \
                them, so pagedb searches without the app's types. The query is read as a person typed \
                it: every word must be found, case and accents folded, the last one as a prefix unless \
                the query ends with a space; quotes, *, -, AND, OR, NOT and parentheses are plain text. \
                Best match first; while the last word is a prefix and more than 1,000 items match, most \
                recently cached first, as the app's search lists a word being typed. Each match is printed with its feed, its row there and its text, the matched words in \
                [brackets]. An item shared across feeds is one match. Opens the file read-only.

                Examples:
                  pagedb search "swift conc" --db app-cache.sqlite
                  pagedb search café --db app-cache.sqlite --feed home --json
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var output: OutputOptions
        @Argument(help: "What to search for, as typed.") var query: String
        @Option(name: .long, help: "Only this feed (repeat for several).") var feed: [String] = []
        @Option(name: .long, help: "The most matches to print.") var limit = 20
        @Flag(name: .long, help: "Most recently cached first, instead of best match first.") var recent = false

        func validate() throws {
            if limit < 1 { throw ValidationError("--limit must be 1 or more.") }
        }

        func run() async throws {
            let found = try database.openForReading().read { store in
                try CachedSearch.find(query, in: store, feeds: feed.isEmpty ? nil : feed, recent: recent, limit: limit)
                    .map { match in
                        let row = try store.feed(key: match.feedKey).map {
                            try store.rowIndex(ofPosition: match.item.position, in: $0)
                        }
                        return (match: match, row: row ?? 0, shown: match.highlighted(), marked: match.marked())
                    }
            }
            if output.json {
                try Terminal.printJSON(
                    found.map { found in
                        SearchMatchJSON(
                            feed: found.match.feedKey, row: found.row, id: found.match.id, text: found.shown.text,
                            matches: found.shown.ranges.map { String(found.shown.text[$0]) })
                    })
                return
            }
            guard !found.isEmpty else { return print("No match.") }
            print(
                Terminal.table(
                    ["FEED", "ROW", "ID", "TEXT"],
                    found.map { found in
                        [
                            output.cell(found.match.feedKey, 24), "\(found.row)", output.cell(found.match.id, 24),
                            output.cell(found.marked.replacingOccurrences(of: "\n", with: " · "), 100),
                        ]
                    }))
        }
    }

    struct Reindex: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild the search index from the cached items, and the counts that place deep rows.",
            discussion: """
                Every searchable feed's rows are indexed again, in one transaction: what `pagedb verify` \
                asks for when a writer that bypassed PagedStore (sqlite3 by hand) left the index behind \
                the items, and what gives an index made by an earlier PagedStore its index of \
                three-letter prefixes (a word being typed then reads its newest matches at once). \
                Each item keeps its document number, which orders the most recently cached first. \
                Open lists are not disturbed: the rows do not change. The row counts kept per group of \
                pages (which find a row's place deep in a long feed) are dropped too, for the next write \
                that needs them to count them again: what `pagedb verify` asks for when they differ from \
                the pages.

                Example:
                  pagedb reindex --db app-cache.sqlite
                """)

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let queue = try database.openForWriting()
            let progress = Progress("indexing rows", total: nil)
            let documents = try queue.write { store in
                try store.forgetAllPageGroups()
                return try store.rebuildSearchIndex(progress: progress.update)
            }
            progress.finish()
            print("Indexed \(documents) items.")
        }
    }
}

/// `search --json`: one match.
struct SearchMatchJSON: Encodable {
    let feed: String
    let row: Int
    let id: String
    let text: String
    let matches: [String]
}
