package import Foundation
package import PagedStore

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
        var run = try beginSeed(into: key, fetchedAt: fetchedAt)
        for page in pages {
            try seed(page, &run)
            progress(run.written)
        }
        return try finishSeed(&run)
    }

    /// A seed in progress: pages arrive one at a time (a streamed fixture), all inside the caller's
    /// one transaction.
    package struct SeedRun {
        fileprivate var feed: FeedRecord
        fileprivate let wasEmpty: Bool
        /// The bottom row's position before the seed: rows below it are the seed's own.
        fileprivate let bottomBefore: Int64?
        /// Ids skipped because the feed had them before the seed, kept (on disk) only once one is met,
        /// so that a second line with such an id is still a repeat.
        fileprivate var skippedBefore: SeenIDs?
        fileprivate let fetchedAt: Date
        fileprivate var firstNewer: String??
        /// Set when the rows are staged and written in id order at the end (see ``PageStore/BulkSeed``).
        fileprivate var bulk: BulkSeed?
        /// Items written so far (ids already in the feed are skipped); staged ones, for a bulk seed.
        package fileprivate(set) var written = 0
        /// The items the last page wrote, which a feed sharing its items spreads to the other feeds
        /// holding them (see ``PageStore/spreadSharedCopies(_:from:)``); none for a bulk seed.
        package fileprivate(set) var lastPageWrote: [EncodedItem] = []
        /// Whether the rows are staged and written at the end, by ``finishSeed(_:)``.
        package var isBulk: Bool { bulk != nil }
    }

    /// Starts seeding the feed `key` (created when missing).
    /// - Parameter expectedItems: How many items will follow, when known (a fixture's first pass
    ///   counted them): enough of them into an empty feed take the bulk path, which needs the byte
    ///   offsets of ``seed(_:offsets:_:)``.
    package func beginSeed(into key: String, fetchedAt: Date = Date(), expectedItems: Int? = nil) throws -> SeedRun {
        let feed = try ensureFeed(key: key)
        let bulk = try expectedItems.map { try prefersBulkSeed(of: $0, into: feed) } ?? false
        return SeedRun(
            feed: feed, wasEmpty: feed.rowCount == 0, bottomBefore: feed.bottomPosition, skippedBefore: nil,
            fetchedAt: fetchedAt, firstNewer: nil, bulk: bulk ? try beginBulkSeed(into: feed) : nil)
    }

    /// Appends one fixture page below the feed's rows, keeping its cursors.
    /// - Returns: The indexes in `page.items` of the items not written: their id was in the feed
    ///   already, before the seed or written by it (see ``seeded(_:by:)``).
    @discardableResult
    package func seed(_ page: FixturePage, _ run: inout SeedRun) throws -> [Int] {
        try seed(page, offsets: [], &run)
    }

    /// Appends one fixture page whose items start at the byte `offsets` of the fixture, which a bulk
    /// seed reports a repeated id with (see ``finishSeed(_:)``).
    /// - Returns: The indexes in `page.items` of the items not written (none for a bulk seed, which
    ///   finds repeats at the end).
    @discardableResult
    package func seed(_ page: FixturePage, offsets: [Int], _ run: inout SeedRun) throws -> [Int] {
        let items = page.items.map { EncodedItem(itemID: $0.id, section: $0.section, payload: $0.json) }
        let write = PageWrite(
            request: .seed, requestCursor: run.feed.oldestCursor, olderCursor: page.olderCursor,
            newerCursor: page.newerCursor, fetchedAt: run.fetchedAt)
        if run.firstNewer == nil { run.firstNewer = .some(page.newerCursor) }
        run.lastPageWrote = []
        if var bulk = run.bulk {
            try stageBulkSeed(items, offsets: offsets, page: write, &bulk, feed: &run.feed)
            run.bulk = bulk
            run.written = bulk.staged
            return []
        }
        let written = try appendPage(items, page: write, to: &run.feed)
        run.written += written.count
        run.lastPageWrote = written.count == items.count ? items : written.map { items[$0.offset] }
        guard written.count < items.count else { return [] }
        let kept = Set(written.map(\.offset))
        return items.indices.filter { !kept.contains($0) }
    }

    /// Whether a line with `id` (at byte `offset`), which ``seed(_:_:)`` did not write, repeats an id
    /// of this seed: its row was written from an earlier line, or an earlier line was skipped too
    /// because the feed had the id before the seed.
    /// - Throws: ``FixtureProblem`` when the ids cannot be checked.
    package func isRepeat(_ id: String, at offset: Int, in run: inout SeedRun) throws -> Bool {
        if try seeded(id, by: run) { return true }
        do {
            if run.skippedBefore == nil { run.skippedBefore = try SeenIDs(onDisk: ()) }
            let first = try run.skippedBefore?.insert(id, at: offset) { _, reason in
                FixtureError(file: "", line: 0, column: 0, reason: reason)
            }
            return first != nil
        } catch let error as FixtureError {
            throw FixtureProblem(offset: offset, reason: error.reason)
        }
    }

    /// Whether the feed's row with `id` was written by this seed (a repeated id in the fixture) rather
    /// than being there before it: the seed's rows are the ones below the old bottom row.
    package func seeded(_ id: String, by run: SeedRun) throws -> Bool {
        let sql = "SELECT position FROM item WHERE feed_id = ? AND item_id = ?"
        let position = try connection.integer(sql, run.feed.id, id)
        guard let position else { return false }
        return run.bottomBefore.map { position > $0 } ?? true
    }

    /// Records the seeded feed as loaded (and writes a bulk seed's rows).
    /// - Returns: The number of items written.
    /// - Throws: ``FixtureProblem`` at the first line of a bulk seed that repeats an id; the caller's
    ///   transaction must then roll back.
    package func finishSeed(_ run: inout SeedRun) throws -> Int {
        if run.wasEmpty, let first = run.firstNewer { run.feed.newestCursor = first }
        run.feed.loaded = true
        run.feed.lastRefreshAt = run.feed.lastRefreshAt ?? run.fetchedAt
        if var bulk = run.bulk {
            if let repeated = try finishBulkSeed(&bulk, feed: &run.feed) {
                throw FixtureProblem(
                    offset: repeated.offset,
                    reason: "duplicate id \(repeated.itemID.debugDescription) (on an earlier line)")
            }
            run.bulk = nil
        } else {
            try save(&run.feed)
        }
        return run.written
    }

    /// Writes the feed in a fixture format that ``seed(_:into:fetchedAt:progress:)`` reads back to the
    /// same bytes: `json` (an array of items), `ndjson`, or `pages` (an array of page objects with
    /// their cursors).
    package func export(_ feed: FeedRecord, format: FixtureFormat, to output: (Data) -> Void) throws {
        let newline = Data("\n".utf8)
        switch format {
        case .ndjson:
            try forEachItem(of: feed) { item in output(Self.exportable(item.payload) + newline) }
        case .json, .page:
            output(Data("[".utf8))
            var first = true
            try forEachItem(of: feed) { item in
                output(Data((first ? "\n  " : ",\n  ").utf8) + Self.exportable(item.payload))
                first = false
            }
            output(Data((first ? "]\n" : "\n]\n").utf8))
        case .pages:
            // Every page, also one with no rows left: the page that ended the feed (`next_cursor: null`)
            // must come back, or a feed seeded from the export would fetch again.
            let pages = try self.pages(of: feed)
            var next = pages.startIndex
            var open = false
            func openPage() {
                output(Data(((next == pages.startIndex ? "" : ",") + "\n  {\"items\": [").utf8))
                open = true
            }
            func closePage() {
                output(Data(Self.pageTail(pages[next]).utf8))
                next += 1
                open = false
            }
            output(Data("[".utf8))
            var itemsInPage = 0
            try forEachItem(of: feed, withPage: true) { item, itemPage in
                // Close pages until the one this row belongs to (pages without rows pass by empty).
                while next < pages.endIndex, pages[next].pageNo != itemPage {
                    if !open { openPage() }
                    closePage()
                    itemsInPage = 0
                }
                // A row whose page is missing (a damaged file, which verify reports) is left out.
                guard next < pages.endIndex else { return }
                if !open { openPage() }
                output(Data((itemsInPage == 0 ? "\n    " : ",\n    ").utf8) + Self.exportable(item.payload))
                itemsInPage += 1
            }
            while next < pages.endIndex {
                if !open { openPage() }
                closePage()
            }
            output(Data((pages.isEmpty ? "]\n" : "\n]\n").utf8))
        }
    }

    /// A payload as export writes it: JSON as it is stored; anything else (a binary codec's bytes,
    /// an edited row) as a JSON string, so control bytes are escaped and the output stays JSON.
    static func exportable(_ payload: Data) -> Data {
        // Cheap on purpose (export streams millions of rows): what the JSON codec stores is an object
        // with every control character escaped.
        let isPlainJSON =
            payload.first == UInt8(ascii: "{") && payload.last == UInt8(ascii: "}")
            && !payload.contains { $0 < 0x20 || $0 == 0x7F }
        if isPlainJSON { return payload }
        let text = String(decoding: payload, as: UTF8.self)
        return (try? JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed])) ?? Data("null".utf8)
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
        try connection.run("VACUUM INTO ?", path)
    }
}
