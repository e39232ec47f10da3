import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// A row's index comes from the counts of the pages above it and the rows above it in its page, and
/// always equals the count of rows above it: on pages added below and on top, on pages longer than
/// the walk within a page, on a file whose page counts were edited by hand, and by the groups of
/// pages a write deep in a feed makes, which every page write keeps.
@Suite(.limit(minutes: 1)) struct RowIndexByPagesTests {
    let directory: TemporaryDirectory
    let queue: DatabaseQueue

    init() throws {
        directory = try TemporaryDirectory()
        queue = try DatabaseQueue(path: directory.path("cache.db"))
    }

    @Test func everyRowsIndexIsTheCountOfTheRowsAboveIt() throws {
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            // Deeper than the rows counted before the pages are read.
            try Self.appendPages(60, named: "o", rows: { page in page % 3 == 0 ? 1 : 7 }, to: &feed, in: store)
            for page in 0..<3 {
                _ = try store.prependPage(
                    Fixtures.items("n\(page)-", count: 5),
                    page: PageWrite(request: .first, requestCursor: nil, olderCursor: nil, newerCursor: "n\(page)"),
                    to: &feed)
            }
        }
        try expectEveryIndexIsTheCount()
    }

    @Test func aPageLongerThanTheWalkIsCounted() throws {
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try store.appendPage(
                Fixtures.items("a", count: 3), page: Fixtures.olderPage(from: nil, to: "c0"), to: &feed)
            try store.appendPage(
                Fixtures.items("b", count: PageStore.rowIndexPageWalkLimit + 40),
                page: Fixtures.olderPage(from: "c0", to: "c1"), to: &feed)
        }
        try expectEveryIndexIsTheCount()
    }

    @Test(arguments: [
        "UPDATE page SET row_count = -5",
        "UPDATE page SET row_count = 9223372036854775807",
        "UPDATE page SET row_count = row_count + 1000",
        "UPDATE item SET page_no = 0 - page_no",
    ])
    func pageCountsEditedByHandStillGiveTheCount(sql: String) throws {
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try Self.appendPages(80, named: "p", rows: { _ in 4 }, to: &feed, in: store)
        }
        _ = try queue.write { store in try store.connection.run(sql) }
        try expectEveryIndexIsTheCount()
    }

    @Test func aWriteDeepInAFeedCountsByGroupsOfPagesThatFollowEveryPageWrite() throws {
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try Self.appendPages(200, named: "o", rows: { page in 1 + page % 4 }, to: &feed, in: store)
            #expect(try !store.hasPageGroups(feed.id), "a feed of 200 short pages has none until a write needs them")
            let bottom = try #require(feed.bottomPosition)
            _ = try store.rowIndex(ofPosition: bottom, in: feed)
            #expect(try store.hasPageGroups(feed.id), "a write 200 pages down made them")
            // Pages on top take numbers below zero, in groups of their own.
            for page in 0..<70 {
                _ = try store.prependPage(
                    Fixtures.items("n\(page)-", count: 2),
                    page: PageWrite(request: .first, requestCursor: nil, olderCursor: nil, newerCursor: "n\(page)"),
                    to: &feed)
            }
        }
        try expectEveryIndexIsTheCount(writing: true)
        try queue.write { store in
            var feed = try #require(try store.feed(key: "home"))
            for id in ["o3-0", "o150-1", "n20-0", "o199-0"] { _ = try store.removeItem(id, from: &feed) }
            for row in [0, 100, 300] {
                try store.insertItem(
                    EncodedItem(itemID: "local\(row)", section: nil, payload: Data("{}".utf8)), atRow: row, local: true,
                    in: &feed)
            }
            let pages = try store.pages(of: feed)
            _ = try store.cut(&feed, keepingPages: pages.count - 40, of: pages)
        }
        try expectEveryIndexIsTheCount(writing: true)
        try expectGroupsAreThePagesSums()
        // A writer by hand drops the groups it would leave wrong, and the next deep write counts them.
        try ForeignWriter.execute(
            """
            UPDATE page SET row_count = row_count WHERE page_no = 5;
            INSERT INTO page (feed_id, page_no, request, fetched_at, row_count) VALUES (1, 100000, 'older', 0, 0);
            """,
            on: directory.path("cache.db"))
        #expect(try queue.read { store in try store.connection.integer("SELECT count(*) FROM page_group") } == 0)
        try expectEveryIndexIsTheCount(writing: true)
        try expectGroupsAreThePagesSums()
    }

    @Test func groupsATriggerOfWhichWasDroppedAreCountedAgainByTheNextWrite() throws {
        try writeGroupedFeed(pages: 150, rowsEach: 3)
        _ = try queue.write { store in
            // Dropped, the trigger cannot tell this store of a writer that bypasses it.
            try store.connection.execute("DROP TRIGGER page_group_delete")
            var feed = try #require(try store.feed(key: "home"))
            _ = try store.removeItem("p10-0", from: &feed)
            try store.connection.run("DELETE FROM page WHERE page_no = (SELECT max(page_no) FROM page)")
        }
        #expect(try !queue.read { store in try store.hasPageGroupTriggers() }, "the sums are not trusted")
        try expectEveryIndexIsTheCount(writing: false)
        try expectEveryIndexIsTheCount(writing: true)
        #expect(try queue.read { store in try store.hasPageGroupTriggers() })
        try expectGroupsAreThePagesSums()
    }

    @Test func aDeletedFeedLeavesNoRowsToItsGroups() throws {
        try writeGroupedFeed(pages: 140, rowsEach: 2)
        try queue.write { store in try store.deleteFeed(try #require(try store.feed(key: "home"))) }
        let counted = try queue.read { store in
            try store.connection.integer("SELECT count(*) FROM page_group WHERE row_count != 0")
        }
        #expect(counted == 0)
    }

    @Test func groupsEditedByHandAreReportedAndCountedAgainAfterTheRepair() throws {
        try writeGroupedFeed(pages: 150, rowsEach: 2)
        try ForeignWriter.execute("UPDATE page_group SET row_count = row_count + 5", on: directory.path("cache.db"))
        #expect(try queue.read { try $0.verify() }.map(\.rule) == ["page_groups"])
        _ = try queue.write { store in try store.forgetAllPageGroups() }
        #expect(try queue.read { try $0.verify() }.isEmpty)
        try expectEveryIndexIsTheCount(writing: true)
        try expectGroupsAreThePagesSums()
    }

    /// Appends `count` pages to `feed`, page *n* holding `rows(n)` rows named `prefix` *n* `-` *i*,
    /// each asked with the cursor the one above it returned.
    static func appendPages(
        _ count: Int, named prefix: String, rows: (Int) -> Int, to feed: inout FeedRecord, in store: PageStore
    ) throws {
        var cursor: String?
        for page in 0..<count {
            try store.appendPage(
                Fixtures.items("\(prefix)\(page)-", count: rows(page)),
                page: Fixtures.olderPage(from: cursor, to: "c\(page)"),
                to: &feed)
            cursor = "c\(page)"
        }
    }

    /// Writes the feed "home" of `pages` pages of `rowsEach` rows (named `p`), with its groups.
    private func writeGroupedFeed(pages: Int, rowsEach: Int) throws {
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try Self.appendPages(pages, named: "p", rows: { _ in rowsEach }, to: &feed, in: store)
            try store.makePageGroups(of: feed.id)
        }
    }

    /// Every group's count is the sum of its pages' counts.
    func expectGroupsAreThePagesSums(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let differing = try queue.read { store in try store.pageGroupDifferences() }
        #expect(differing == 0, "a group's count is its pages' sum", sourceLocation: sourceLocation)
    }

    /// Every row's index is the count of the rows above it, asked in a read or in a write (which
    /// may make the page groups).
    func expectEveryIndexIsTheCount(
        writing: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let check = { (store: PageStore) throws -> Void in
            let feed = try #require(try store.feed(key: "home"))
            let rows = try store.window(of: feed, from: .top, limit: Int.max)
            #expect(rows.count > PageStore.rowIndexCountLimit, sourceLocation: sourceLocation)
            for (index, row) in rows.enumerated() {
                #expect(try store.rowIndex(ofPosition: row.position, in: feed) == index, sourceLocation: sourceLocation)
                #expect(
                    try store.rowCount(throughPosition: row.position, in: feed) == index + 1,
                    sourceLocation: sourceLocation)
            }
        }
        if writing { try queue.write(check) } else { try queue.read(check) }
    }
}
