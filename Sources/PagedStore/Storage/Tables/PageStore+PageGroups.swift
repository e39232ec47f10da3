import Foundation

/// Row counts kept per group of consecutive page numbers (`0015_page_groups.sql`), so that the rows
/// above a page deep in a feed are the sums of the groups above it and the counts of a few pages of
/// its own group, not one entry per page above (see ``rowIndex(ofPosition:in:including:)``).
///
/// A feed has groups once a write asked a row index ``pageGroupsFrom`` pages down it; from then on
/// each of this store's writes that changes a page's rows counts that page's group again. Writers
/// that bypass PagedStore drop the feed's groups through triggers (PagedStore's own connections run
/// no trigger), made with the first groups of the file.
extension PageStore {
    /// A group holds the page numbers that agree but for their last ``pageGroupShift`` bits; the
    /// triggers and queries below spell the same shift.
    static let pageGroupShift: Int64 = 6

    /// The pages above a row from which a write makes its feed's groups.
    static let pageGroupsFrom: Int64 = 128

    /// The triggers that drop a feed's groups when a writer that bypasses PagedStore changes its pages.
    static let pageGroupTriggersSQL = """
        CREATE TRIGGER IF NOT EXISTS page_group_insert AFTER INSERT ON page BEGIN
            DELETE FROM page_group WHERE feed_id = NEW.feed_id;
        END;
        CREATE TRIGGER IF NOT EXISTS page_group_delete AFTER DELETE ON page BEGIN
            DELETE FROM page_group WHERE feed_id = OLD.feed_id;
        END;
        CREATE TRIGGER IF NOT EXISTS page_group_update AFTER UPDATE OF feed_id, page_no, row_count ON page BEGIN
            DELETE FROM page_group WHERE feed_id IN (OLD.feed_id, NEW.feed_id);
        END;
        """

    /// The names of ``pageGroupTriggersSQL``'s triggers.
    private static let pageGroupTriggers = ["page_group_insert", "page_group_delete", "page_group_update"]

    /// Whether the file has the triggers that keep other writers from leaving groups behind: without
    /// them no group is trusted. Asked of the file's schema once per write, and again only when its
    /// version moved (another process may have made them, `sqlite3` may have dropped one).
    func hasPageGroupTriggers() throws(StorageError) -> Bool {
        if let known = pageGroupTriggersInThisWrite { return known }
        let version = try connection.int64("PRAGMA schema_version") ?? 0
        let has: Bool
        if let known = pageGroupTriggersInSchema, known.version == version {
            has = known.has
        } else {
            let names = Self.pageGroupTriggers.map { "'\($0)'" }.joined(separator: ", ")
            let sql = "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name IN (\(names))"
            has = try connection.integer(sql) == Int64(Self.pageGroupTriggers.count)
            pageGroupTriggersInSchema = (version, has)
        }
        if isWriting { pageGroupTriggersInThisWrite = has }
        return has
    }

    /// Whether the feed has groups. Once per write and feed.
    func hasPageGroups(_ feedID: Int64) throws(StorageError) -> Bool {
        if let known = pageGroupFeedsInThisWrite[feedID] { return known }
        let has = try connection.integer("SELECT EXISTS (SELECT 1 FROM page_group WHERE feed_id = ?)", feedID) == 1
        if isWriting { pageGroupFeedsInThisWrite[feedID] = has }
        return has
    }

    /// Counts the feed's groups from its pages, in the running write, making the triggers when the
    /// file lacks them (groups left from before a trigger was dropped are not trusted: all go).
    func makePageGroups(of feedID: Int64) throws(StorageError) {
        if try !hasPageGroupTriggers() {
            try connection.execute(Self.pageGroupTriggersSQL)
            try connection.run("DELETE FROM page_group")
            pageGroupFeedsInThisWrite = [:]
            pageGroupTriggersInThisWrite = true
        }
        try connection.run("DELETE FROM page_group WHERE feed_id = ?", feedID)
        try connection.run(
            """
            INSERT INTO page_group (feed_id, grp, row_count)
            SELECT feed_id, page_no >> 6, sum(row_count) FROM page WHERE feed_id = ?1 GROUP BY page_no >> 6
            """, feedID)
        pageGroupFeedsInThisWrite[feedID] = true
    }

    /// Counts again the groups of `pageNos`, pages of the feed whose rows a write changed, when the
    /// feed has groups; nothing else when it has none.
    func recountPageGroups(of feedID: Int64, holding pageNos: some Sequence<Int64>) throws(StorageError) {
        guard try hasPageGroups(feedID) else { return }
        for group in Set(pageNos.map { $0 >> Self.pageGroupShift }) {
            try connection.run(
                """
                INSERT OR REPLACE INTO page_group (feed_id, grp, row_count)
                SELECT ?1, ?2, coalesce(sum(row_count), 0) FROM page WHERE feed_id = ?1 AND page_no BETWEEN ?3 AND ?4
                """, feedID, group, group << Self.pageGroupShift, (group << Self.pageGroupShift) | 63)
        }
    }

    /// Forgets the feed's groups: its pages went.
    func forgetPageGroups(of feedID: Int64) throws(StorageError) {
        guard try hasPageGroups(feedID) else { return }
        try connection.run("DELETE FROM page_group WHERE feed_id = ?", feedID)
        pageGroupFeedsInThisWrite[feedID] = false
    }

    /// Forgets every feed's groups, for the next write that needs them to count them again: the repair
    /// of groups a writer left wrong while it bypassed both PagedStore and the triggers.
    package func forgetAllPageGroups() throws(StorageError) {
        try connection.run("DELETE FROM page_group")
        pageGroupFeedsInThisWrite = [:]
    }

    /// How many groups differ from the sums of their pages' counts, in the feeds that have groups.
    package func pageGroupDifferences() throws(StorageError) -> Int {
        let sql = """
            SELECT (SELECT count(*) FROM (
                SELECT feed_id, page_no >> 6, sum(row_count) FROM page
                WHERE feed_id IN (SELECT feed_id FROM page_group) GROUP BY 1, 2 HAVING sum(row_count) != 0
                EXCEPT SELECT feed_id, grp, row_count FROM page_group))
            + (SELECT count(*) FROM (
                SELECT feed_id, grp, row_count FROM page_group WHERE row_count != 0
                EXCEPT SELECT feed_id, page_no >> 6, sum(row_count) FROM page GROUP BY 1, 2))
            """
        return Int(try connection.integer(sql) ?? 0)
    }

    /// How many rows the feed's pages above page `pageNo` hold, by their recorded counts, or nil
    /// when a count is negative (a file edited by hand): the groups wholly above it, then the pages
    /// of its own group above it. A write makes the feed's groups when it has none and the page is
    /// ``pageGroupsFrom`` pages down; a read without them sums the pages.
    /// - Complexity: O(*g* + 2^``pageGroupShift``) for *g* groups above, with groups; O(*p*) for
    ///   *p* pages above without.
    func rowsOfPages(above pageNo: Int64, in feed: FeedRecord) throws(StorageError) -> Double? {
        var useGroups = try hasPageGroupTriggers()
        if useGroups { useGroups = try hasPageGroups(feed.id) }
        if !useGroups, isWriting, let top = try firstPageNo(of: feed), top < pageNo {
            let (pagesAbove, beyondAnyCount) = pageNo.subtractingReportingOverflow(top)
            if beyondAnyCount || pagesAbove >= Self.pageGroupsFrom {
                try makePageGroups(of: feed.id)
                useGroups = true
            }
        }
        guard useGroups else {
            return try sumOfCounts(
                "SELECT min(row_count), total(row_count) FROM page WHERE feed_id = ?1 AND page_no < ?2", feed.id,
                pageNo)
        }
        let group = pageNo >> Self.pageGroupShift
        guard
            let groups = try sumOfCounts(
                "SELECT min(row_count), total(row_count) FROM page_group WHERE feed_id = ?1 AND grp < ?2", feed.id,
                group, orZero: true),
            let pages = try sumOfCounts(
                """
                SELECT min(row_count), total(row_count) FROM page
                WHERE feed_id = ?1 AND page_no >= ?2 AND page_no < ?3
                """, feed.id, group << Self.pageGroupShift, pageNo, orZero: true)
        else { return nil }
        // The caller found a row above in another page: pages above that count none were edited.
        return groups + pages > 0 ? groups + pages : nil
    }

    /// The total of the counts `sql` reads (their smallest, then their total), or nil when one is
    /// negative; with `orZero`, no count at all is a total of zero, otherwise nil.
    private func sumOfCounts(
        _ sql: String, _ first: Int64, _ second: Int64, _ third: Int64? = nil, orZero: Bool = false
    ) throws(StorageError) -> Double? {
        try connection.withStatement(sql) { statement throws(StorageError) -> Double? in
            try statement.bind(1, first)
            try statement.bind(2, second)
            if let third { try statement.bind(3, third) }
            guard try statement.step() else { return nil }
            if statement.isNull(0) { return orZero ? 0 : nil }
            guard statement.int64(0) >= 0 else { return nil }
            return statement.double(1)
        }
    }
}
