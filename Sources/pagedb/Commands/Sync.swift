import ArgumentParser
import Foundation
import PagedStore
import PagedStoreFixtures

extension PagedDB {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch pages from a live API into a feed, through the engine.",
            discussion: """
                The first run fetches the first page and then up to --pages pages in all, with progress on \
                a terminal. A run on a feed that has rows refreshes it and prints the change, as \
                `apply` does. Items are JSON objects with an id (--id-key).

                Examples:
                  pagedb sync home --db cache.sqlite --url https://api.example.com/posts --items-path data.items --next-path meta.next_cursor
                  pagedb sync timeline --db cache.sqlite --url "https://mastodon.example/api/v1/timelines/home" --link-header --pages 3 --header "Authorization: Bearer $TOKEN"

                Headers go only to the URL's origin (scheme, host and port); their values are never printed. \
                A response larger than --max-response-bytes, or slower than --deadline seconds, fails the run \
                with exit status 69, as an HTTP error does.
                """)

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The feed's key.") var feed: String
        @Option(name: .long, help: "The URL of the first page.") var url: String
        @Option(name: .long, help: "How many pages the first run fetches.") var pages = 1
        @Flag(name: .long, help: "Cursors are RFC 8288 Link headers; the body is the array of items.") var linkHeader =
            false
        @Option(name: .long, help: "Dotted key path of the items in a JSON body.") var itemsPath = "items"
        @Option(name: .long, help: "Dotted key path of the older-side cursor in a JSON body.") var nextPath =
            "next_cursor"
        @Option(name: .long, help: "Query parameter that carries the cursor.") var cursorParameter = "cursor"
        @Option(name: .long, help: "The key holding each item's id.") var idKey = "id"
        @Option(
            name: .customLong("header"),
            help: ArgumentHelp(
                "A request header, 'Name: value' (repeatable). Sent only to the URL's origin; never printed.",
                valueName: "name: value"))
        var headers: [String] = []
        @Option(
            name: .long,
            help: "What a refresh without overlap does: replace or keep-gap; default: the feed's recorded policy.")
        var gapPolicy: SyncGapPolicy?
        @Option(name: .long, help: "The largest response body accepted, in bytes (after decompression).")
        var maxResponseBytes = HTTPSourceOptions().maximumResponseBytes
        @Option(name: .long, help: "Seconds one request may take in all.") var deadline = HTTPSourceOptions()
            .requestDeadline

        func validate() throws {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? "") else {
                throw ValidationError("--url must be an http or https URL.")
            }
            guard pages >= 1 else { throw ValidationError("--pages must be at least 1.") }
            guard maxResponseBytes >= 1 else { throw ValidationError("--max-response-bytes must be at least 1.") }
            guard deadline.isFinite, deadline > 0 else {
                throw ValidationError("--deadline must be a positive number.")
            }
            _ = try SyncHeaders.parse(headers)
        }

        func run() async throws {
            try await reportingFailures {
                guard let base = URL(string: url) else { throw ValidationError("--url is not a URL.") }
                let reader = FixtureReader(idKey: idKey)
                let convention: HTTPPageSource<JSONItem>.Convention =
                    linkHeader
                    ? .linkHeader
                    : .jsonBody(itemsPath: itemsPath, olderCursorPath: nextPath, cursorParameter: cursorParameter)
                let options = HTTPSourceOptions(maximumResponseBytes: maxResponseBytes, requestDeadline: deadline)
                let source = HTTPPageSource<JSONItem>(
                    url: base, convention: convention, headers: try SyncHeaders.parse(headers), options: options
                ) { data in
                    guard let item = try reader.read(data, file: "response").pages.first?.items.first else {
                        throw CommandFailure(status: .badInput, message: "an item of the response is empty")
                    }
                    return JSONItem(item)
                }
                let store = try FeedStore(path: try database.path())
                // As the app's feed: its copies spread, its index kept, its rows and limits as its
                // policy says (another cache version would clear the app's rows and edits).
                let engine = try store.feedAsRecorded(feed, source: source, codec: JSONItem.codec(idKey: idKey)) {
                    policy in
                    policy.refreshOnOpen = .never
                    if let gapPolicy { policy.gapPolicy = gapPolicy.policy }
                }
                let existing = await engine.snapshot.rows.count
                await engine.refresh()
                try Self.failIfFailed(await engine.snapshot)
                if existing > 0 {
                    print("Refreshed \(Terminal.escape(feed)):")
                    for line in ChangeReport.lines(await engine.snapshot.change) { print("  \(line)") }
                } else {
                    let progress = Progress("syncing \(Terminal.escape(feed)): page", total: pages)
                    var fetched = 1
                    while fetched < pages, await engine.snapshot.nextPage == .idle {
                        await engine.loadNextPage()
                        try Self.failIfFailed(await engine.snapshot)
                        fetched += 1
                        progress.update(fetched)
                    }
                    progress.finish()
                    print("Fetched \(fetched) page\(fetched == 1 ? "" : "s") into \(Terminal.escape(feed)).")
                }
                let snapshot = await engine.snapshot
                print("  state: \(ChangeReport.states(snapshot)), \(snapshot.rows.count) rows")
            }
        }

        /// Throws the feed's failure, if its refresh or next page failed, through the one mapping of
        /// errors to exit statuses (the server failing is 69).
        static func failIfFailed(_ snapshot: FeedSnapshot<JSONItem>) throws {
            if case .failed(let error) = snapshot.refresh { throw CommandFailure.feed(error, sourceStatus: .network) }
            if case .failed(let error) = snapshot.nextPage { throw CommandFailure.feed(error, sourceStatus: .network) }
        }
    }
}

/// `--gap-policy`: ``FeedPolicy/GapPolicy`` spelled for a command line.
enum SyncGapPolicy: String, ExpressibleByArgument, CaseIterable {
    case replace
    case keepGap = "keep-gap"

    var policy: FeedPolicy.GapPolicy {
        switch self {
        case .replace: .replace
        case .keepGap: .keepGap
        }
    }
}

/// `--header 'Name: value'` options, checked without ever echoing a value (it may be a token).
enum SyncHeaders {
    static func parse(_ options: [String]) throws -> [String: String] {
        var headers: [String: String] = [:]
        for (index, option) in options.enumerated() {
            guard let colon = option.firstIndex(of: ":") else {
                throw ValidationError("--header \(index + 1) must be 'Name: value'.")
            }
            let name = option[..<colon].trimmingCharacters(in: .whitespaces)
            let value = option[option.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            // RFC 9110 token characters: anything else could split or smuggle a header.
            let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.alphanumerics)
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && token.contains($0) }) else {
                throw ValidationError("--header \(index + 1) has no valid header name before its colon.")
            }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) else {
                throw ValidationError("--header \(index + 1) (\(name)) has a control character in its value.")
            }
            headers[name] = value
        }
        return headers
    }
}
