import Foundation

/// One broken rule found by ``PageStore/verify()``.
package struct InvariantViolation: Sendable, Equatable, CustomStringConvertible {
    /// The feed concerned, or nil for the file as a whole.
    package var feed: String?
    /// A short, stable name of the rule (`row_count`, `cursor_chain`, …), for scripts.
    package var rule: String
    /// What is wrong, as a sentence.
    package var detail: String

    /// `feed: rule: detail`.
    package var description: String {
        "\(feed.map { "feed \($0.debugDescription): " } ?? "")\(rule): \(detail)"
    }
}

/// What ``PageStore/verify(_:)`` needs of the engine's rules, passed in: storage knows none of them.
package struct InvariantRules: Sendable {
    /// Whether a page with no rows may stay in a sound file: the page, whether it is the feed's
    /// bottom page, and how many pages the feed has.
    package var mayStayEmpty: @Sendable (_ page: PageRecord, _ isBottom: Bool, _ pageCount: Int) -> Bool
    /// What is wrong with a feed's pending edits taken as one stack per item: the item and the
    /// problem, for each stack no edits can make.
    package var stackProblems: @Sendable (_ edits: [PendingEditRecord]) -> [(itemID: String, problem: String)]

    /// Rules made of the two checks.
    package init(
        mayStayEmpty: @escaping @Sendable (PageRecord, Bool, Int) -> Bool,
        stackProblems: @escaping @Sendable ([PendingEditRecord]) -> [(itemID: String, problem: String)]
    ) {
        self.mayStayEmpty = mayStayEmpty
        self.stackProblems = stackProblems
    }
}

/// Checks the file: SQLite's integrity and foreign-key checks, then the engine's own invariants.
extension PageStore {
    /// Every violation found, or none for a sound cache.
    ///
    /// The invariants: no id twice in a feed; positions unique; the feed's counters and top and
    /// bottom positions match its rows; every row belongs to a page and each page's row count matches;
    /// no page is without rows but the one that ended the feed or a feed's only page;
    /// pages follow each other in position order; the cursor chain is contiguous (each next page was
    /// asked with the cursor of the page above it, and the feed resumes from the bottom page's);
    /// an ended feed has no older cursor; gaps sit between two existing, neighbouring rows; every
    /// pending edit row holds a known kind and the payloads its kind needs (``MalformedPendingEdit``).
    /// - Complexity: O(*n* log *n*) for *n* rows.
    /// - Parameter rules: The engine's rules the invariants depend on.
    package func verify(_ rules: InvariantRules) throws -> [InvariantViolation] {
        var violations = try connection.rows("PRAGMA integrity_check") { statement in statement.string(0) ?? "" }
            .filter { $0 != "ok" }.map { InvariantViolation(feed: nil, rule: "integrity", detail: $0) }
        violations += try connection.rows("PRAGMA foreign_key_check") { statement in
            InvariantViolation(
                feed: nil, rule: "foreign_key", detail: "a row of \(statement.string(0) ?? "?") has no parent")
        }
        let orphans = try connection.integer("SELECT count(*) FROM item WHERE feed_id NOT IN (SELECT id FROM feed)")
        if let orphans, orphans > 0 {
            violations.append(.init(feed: nil, rule: "orphan_rows", detail: "\(orphans) rows belong to no feed"))
        }
        let search = try searchIndexDifferences()
        if search.orphans > 0 || search.missing > 0 || search.stale > 0 {
            violations.append(
                .init(
                    feed: nil, rule: "search_index",
                    detail: "the search index has \(search.orphans) documents no row shows, \(search.stale) whose text "
                        + "no row reads as, and misses \(search.missing) rows of searchable feeds (a writer that "
                        + "bypassed it); `pagedb reindex` rebuilds it"))
        }
        let groups = try pageGroupDifferences()
        if groups > 0 {
            violations.append(
                .init(
                    feed: nil, rule: "page_groups",
                    detail: "\(groups) groups of pages count other rows than their pages (a writer that bypassed "
                        + "PagedStore and its triggers); `pagedb reindex` has them counted again"))
        }
        for feed in try feeds() {
            violations += try verify(feed, rules).map {
                InvariantViolation(feed: feed.key, rule: $0.rule, detail: $0.detail)
            }
        }
        return violations
    }

    private func verify(_ feed: FeedRecord, _ rules: InvariantRules) throws -> [(rule: String, detail: String)] {
        var found: [(rule: String, detail: String)] = []
        let id = feed.id
        func count(_ sql: String) throws -> Int {
            Int(try connection.integer(sql, id) ?? 0)
        }
        for (rule, sql) in Self.rangeChecks where try count(sql) > 0 {
            found.append((rule, "the \(rule.replacingOccurrences(of: "_", with: " ")) holds a value out of range"))
        }
        if try count(
            "SELECT count(*) FROM (SELECT item_id FROM item WHERE feed_id = ? GROUP BY item_id HAVING count(*) > 1)")
            > 0
        {
            found.append(("unique_ids", "an id appears more than once"))
        }
        if try count(
            "SELECT count(*) FROM (SELECT position FROM item WHERE feed_id = ? GROUP BY position HAVING count(*) > 1)")
            > 0
        {
            found.append(("unique_positions", "two rows share a sort position"))
        }
        let rows = try count("SELECT count(*) FROM item WHERE feed_id = ?")
        if rows != feed.rowCount {
            found.append(("row_count", "the feed records \(feed.rowCount) rows but has \(rows)"))
        }
        let top = try connection.integer("SELECT min(position) FROM item WHERE feed_id = ?", id)
        let bottom = try connection.integer("SELECT max(position) FROM item WHERE feed_id = ?", id)
        if rows > 0, top != feed.topPosition || bottom != feed.bottomPosition {
            found.append(("positions", "the recorded top and bottom positions do not match the rows"))
        }
        let pages = try self.pages(of: feed)
        let spans = try pageSpans(of: feed)
        let homeless = spans.keys.filter { pageNo in !pages.contains { $0.pageNo == pageNo } }
        if !homeless.isEmpty {
            found.append(("page_rows", "rows belong to pages \(homeless.sorted()) that do not exist"))
        }
        var previousBottom: Int64?
        var empty: [Int64] = []
        for (index, page) in pages.enumerated() {
            let span = spans[page.pageNo]
            if span == nil, page.rowCount == 0,
                !rules.mayStayEmpty(page, index == pages.count - 1, pages.count)
            {
                empty.append(page.pageNo)
            }
            if (span?.count ?? 0) != page.rowCount {
                found.append(
                    ("page_row_count", "page \(page.pageNo) records \(page.rowCount) rows but has \(span?.count ?? 0)"))
            }
            if let span, let previousBottom, span.top <= previousBottom {
                found.append(("page_order", "page \(page.pageNo) starts above the end of the page before it"))
            }
            previousBottom = span?.bottom ?? previousBottom
            // A page asked with no cursor was the feed's top when written (a seed of an empty feed):
            // a refresh may since have put a page above it, joined by proof of overlap, not by cursor.
            if index > 0, page.request == .older || page.request == .seed, page.requestCursor != nil,
                page.requestCursor != pages[index - 1].olderCursor
            {
                found.append(
                    (
                        "cursor_chain",
                        "page \(page.pageNo) was not asked with the older cursor of page \(pages[index - 1].pageNo)"
                    ))
            }
        }
        if let first = empty.first {
            // One line however many: a file that piled them up may hold hundreds.
            let pages = empty.count == 1 ? "page \(first) holds" : "\(empty.count) pages (the first \(first)) hold"
            found.append(("empty_page", "\(pages) no rows, and only the page that ended the feed may"))
        }
        if let last = pages.last, last.request != .local, last.olderCursor != feed.oldestCursor {
            found.append(("cursor_chain", "the feed resumes from a cursor that is not its bottom page's"))
        }
        if feed.endReached, feed.oldestCursor != nil {
            found.append(("end_reached", "the feed has ended but still has an older cursor"))
        }
        let pending = try pendingEditRowsIfMigrated(of: feed)
        for edit in try pending.malformed + unreadableDetachedEdits(of: feed) {
            found.append(("pending_edit", "the pending edit of \(edit.itemID.debugDescription) is \(edit.problem)"))
        }
        for (itemID, problem) in rules.stackProblems(pending.edits) {
            found.append(("pending_edit", "a pending edit of \(itemID.debugDescription) is \(problem)"))
        }
        return found
    }

    /// The largest magnitude of a position or page number: beyond it, one write's arithmetic (a page
    /// of rows `positionStep` apart) could overflow. Commands refuse such values with an error; verify
    /// names them.
    static let maxStoredMagnitude: Int64 = 1 << 62
    /// The latest time a timestamp column may hold: the end of year 9999, in milliseconds.
    static let maxStoredMilliseconds: Int64 = 253_402_300_799_999

    /// Out-of-range values, by rule: each query counts the feed's offending rows (bound to `?`).
    static let rangeChecks: [(rule: String, sql: String)] = {
        let magnitude = "NOT BETWEEN -\(maxStoredMagnitude) AND \(maxStoredMagnitude)"
        let time = "NOT BETWEEN 0 AND \(maxStoredMilliseconds)"
        return [
            (
                "generation",
                "SELECT count(*) FROM feed WHERE id = ? AND generation NOT BETWEEN 0 AND \(maxStoredMagnitude)"
            ),
            ("last_refresh_at", "SELECT count(*) FROM feed WHERE id = ? AND last_refresh_at \(time)"),
            (
                "row_count",
                "SELECT count(*) FROM feed WHERE id = ? AND row_count NOT BETWEEN 0 AND \(maxStoredMagnitude)"
            ),
            (
                "position",
                "SELECT count(*) FROM feed WHERE id = ? AND (top_position \(magnitude) OR bottom_position \(magnitude))"
            ),
            ("position", "SELECT count(*) FROM item WHERE feed_id = ? AND position \(magnitude)"),
            (
                // Bit 1 says that the feed shares its items: every row of such a feed has it, no other.
                "flags",
                """
                SELECT count(*) FROM item WHERE feed_id = ?1 AND (flags NOT IN (0, 1, 2, 3)
                OR (flags & 2 != 0) != ((SELECT shared_type FROM feed WHERE id = ?1) IS NOT NULL))
                """
            ),
            ("page_no", "SELECT count(*) FROM page WHERE feed_id = ? AND (page_no \(magnitude) OR row_count < 0)"),
            ("fetched_at", "SELECT count(*) FROM page WHERE feed_id = ? AND fetched_at \(time)"),
            ("created_at", "SELECT count(*) FROM gap WHERE feed_id = ? AND created_at \(time)"),
        ]
    }()

    /// Each page's row count and top and bottom positions, from one pass over the feed's rows.
    private func pageSpans(of feed: FeedRecord) throws(StorageError) -> [Int64: (count: Int, top: Int64, bottom: Int64)]
    {
        let sql = "SELECT page_no, count(*), min(position), max(position) FROM item WHERE feed_id = ? GROUP BY page_no"
        let spans = try connection.rows(sql, feed.id) { statement in
            (statement.int64(0), (count: statement.int(1), top: statement.int64(2), bottom: statement.int64(3)))
        }
        return Dictionary(spans, uniquingKeysWith: { _, last in last })
    }
}
