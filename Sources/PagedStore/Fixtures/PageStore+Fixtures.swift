package import Foundation

/// Seeding a feed from fixture pages, and exporting it in the same formats.
extension PageStore {
    /// Appends fixture pages to the feed `key` (created when missing) through the same page writes as
    /// the engine. Run it inside one transaction for all-or-nothing.
    ///
    /// - Parameters:
    ///   - pages: The pages, top first; each keeps its cursors.
    ///   - progress: Called after each page with the number of items written so far.
    /// - Returns: The number of items written (ids already in the feed are skipped).
    @discardableResult
    package func seed(
        _ pages: some Sequence<FixturePage>, into key: String, fetchedAt: Date = Date(),
        progress: (Int) -> Void = { _ in }
    ) throws -> Int {
        var feed = try ensureFeed(key: key)
        let wasEmpty = feed.rowCount == 0
        var written = 0
        var firstNewer: String?? = nil
        for page in pages {
            let items = page.items.map { EncodedItem(itemID: $0.id, section: $0.section, payload: $0.json) }
            let write = PageWrite(
                request: .seed, requestCursor: feed.oldestCursor, olderCursor: page.olderCursor,
                newerCursor: page.newerCursor, fetchedAt: fetchedAt)
            if firstNewer == nil { firstNewer = .some(page.newerCursor) }
            written += try appendPage(items, page: write, to: &feed).count
            progress(written)
        }
        if wasEmpty, let first = firstNewer { feed.newestCursor = first }
        feed.loaded = true
        feed.lastRefreshAt = feed.lastRefreshAt ?? fetchedAt
        try save(feed)
        return written
    }

    /// Writes the feed in a fixture format that ``seed(_:into:fetchedAt:progress:)`` reads back to the
    /// same bytes: `json` (an array of items), `ndjson`, or `pages` (an array of page objects with
    /// their cursors).
    package func export(_ feed: FeedRecord, format: FixtureFormat, to output: (Data) -> Void) throws {
        let newline = Data("\n".utf8)
        switch format {
        case .ndjson:
            try forEachItem(of: feed) { item in output(item.payload + newline) }
        case .json, .page:
            output(Data("[".utf8))
            var first = true
            try forEachItem(of: feed) { item in
                output(Data((first ? "\n  " : ",\n  ").utf8) + item.payload)
                first = false
            }
            output(Data((first ? "]\n" : "\n]\n").utf8))
        case .pages:
            output(Data("[".utf8))
            var pageNo: Int64?
            let pages = Dictionary(try self.pages(of: feed).map { ($0.pageNo, $0) }) { first, _ in first }
            try forEachItem(of: feed, withPage: true) { item, itemPage in
                if itemPage != pageNo {
                    if let pageNo { output(Data(Self.pageTail(pages[pageNo]).utf8) + Data(",".utf8)) }
                    output(Data("\n  {\"items\": [".utf8))
                    pageNo = itemPage
                } else {
                    output(Data(",".utf8))
                }
                output(Data("\n    ".utf8) + item.payload)
            }
            if let pageNo { output(Data(Self.pageTail(pages[pageNo]).utf8)) }
            output(Data((pageNo == nil ? "]\n" : "\n]\n").utf8))
        }
    }

    private static func pageTail(_ page: PageRecord?) -> String {
        func quoted(_ cursor: String?) -> String {
            guard let cursor else { return "null" }
            let data = (try? JSONSerialization.data(withJSONObject: cursor, options: [.fragmentsAllowed])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        return
            "\n  ], \"next_cursor\": \(quoted(page?.olderCursor)), \"previous_cursor\": \(quoted(page?.newerCursor))}"
    }

    /// Calls `body` for every row in display order, reading in keyset windows so memory stays flat.
    package func forEachItem(of feed: FeedRecord, _ body: (StoredItem) throws -> Void) throws {
        try forEachItem(of: feed, withPage: false) { item, _ in try body(item) }
    }

    private func forEachItem(of feed: FeedRecord, withPage: Bool, _ body: (StoredItem, Int64) throws -> Void) throws {
        var start = WindowStart.top
        while true {
            let rows = try window(of: feed, from: start, limit: 1000)
            for row in rows { try body(row, withPage ? try pageNo(atPosition: row.position, in: feed) ?? 0 : 0) }
            guard let last = rows.last, rows.count == 1000 else { return }
            start = .after(position: last.position)
        }
    }

    /// Writes a consistent copy of the whole database to a new file (`VACUUM INTO`): what
    /// `pagedb apply --dry-run` works on, so the real file is never touched.
    package func copy(to path: String) throws(StorageError) {
        // A read-only connection runs with `query_only`, which refuses VACUUM INTO although it writes
        // only the new file: lift it for this one statement.
        let queryOnly = try connection.int64("PRAGMA query_only") == 1
        if queryOnly { try connection.execute("PRAGMA query_only = OFF") }
        defer { if queryOnly { try? connection.execute("PRAGMA query_only = ON") } }
        try connection.withStatement("VACUUM INTO ?") { statement throws(StorageError) in
            try statement.bind(1, path)
            try statement.step()
        }
    }
}
