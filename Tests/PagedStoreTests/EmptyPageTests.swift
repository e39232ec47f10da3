import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A page row goes in the write that removes its last row (a local removal, a deletion a page
/// proves, a refresh that rewrites the head), so a feed without a row limit keeps no page rows
/// without rows however long it lives; the cursors the page carried stay where the next page and a
/// trim read them, and `verify` names a page row without rows.
@Suite(.limit()) struct EmptyPageTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// The row counts of the feed's page rows, top first.
    func pageRows() throws -> [Int] {
        try DatabaseQueue(path: test.path).read { store in
            try store.pages(of: #require(try store.feed(key: "home"))).map(\.rowCount)
        }
    }

    @Test func itemsRemovedAndBroughtBackByRefreshesLeaveNoPageRowWithoutRows() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        for round in 0..<20 {
            let removed = server.items.remove(at: round % 8 + 1)
            await feed.refresh()
            server.items.insert(removed, at: round % 8 + 1)
            await feed.refresh()
        }
        let pages = try pageRows()
        #expect(pages.allSatisfy { $0 > 0 }, "\(pages)")
        let violations = try test.violations()
        #expect(violations.isEmpty, "\(violations)")
        try await scrollToTheEnd(feed, "after the refreshes")
        #expect(await feed.snapshot.ids == server.items.map(\.id), "pagination resumes where the rows end")
    }

    @Test func aBottomPageEmptiedByLocalRemovalsGoesAndTheNextPageResumesBelowIt() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.loadNextPage()
        for id in (10..<20).map({ "p\($0)" }) { try await feed.remove(id: id) }
        #expect(try pageRows() == [10])
        #expect(try test.recordOnDisk()?.oldestCursor == "p19", "the feed resumes from the emptied page's cursor")
        #expect(try test.violations().isEmpty)
        await feed.loadNextPage()
        #expect(await feed.snapshot.ids == (0..<10).map { "p\($0)" } + (20..<30).map { "p\($0)" })
        #expect(try test.violations().isEmpty)
    }

    @Test func aMiddlePageEmptiedGoesAndThePageAboveTakesItsOlderCursor() async throws {
        let server = ModelServer(.posts("p", 40), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        for id in (10..<20).map({ "p\($0)" }) { try await feed.remove(id: id) }
        #expect(try pageRows() == [10, 10])
        #expect(try test.violations().isEmpty)
        // A trim may now cut right below the top page: the next page resumes where the emptied one ended.
        #expect(try await feed.trim(maxRows: 10) == 10)
        await feed.loadNextPage()
        #expect(await feed.snapshot.ids == (0..<10).map { "p\($0)" } + (20..<30).map { "p\($0)" })
        #expect(try test.violations().isEmpty)
    }

    @Test func theOnlyPageEmptiedGoesWhenANextPageComesUnderItAndHandsItTheTop() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        let newest = try test.recordOnDisk()?.newestCursor
        for id in (0..<10).map({ "p\($0)" }) { try await feed.remove(id: id) }
        #expect(try pageRows() == [0], "the only page stays, with the cursors the feed resumes from")
        await feed.loadNextPage()
        #expect(await feed.snapshot.ids == (10..<20).map { "p\($0)" })
        #expect(try pageRows() == [10])
        let violations = try test.violations()
        #expect(violations.isEmpty, "\(violations)")
        #expect(try test.recordOnDisk()?.newestCursor == newest, "the top is still where the emptied page said")
        let top = try DatabaseQueue(path: test.path).read { store in
            try store.pages(of: #require(try store.feed(key: "home"))).first
        }
        #expect(top?.request == .first && top?.newerCursor == newest, "\(String(describing: top))")
    }

    @Test func verifyNamesAPageRowWithoutRows() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        // The middle page's rows moved to the page above, as a writer that left page rows behind would.
        try DatabaseQueue(path: test.path).write { store in
            let record = try #require(try store.feed(key: "home"))
            let pages = try store.pages(of: record)
            try store.connection.run(
                "UPDATE item SET page_no = ? WHERE feed_id = ? AND page_no = ?", pages[0].pageNo, record.id,
                pages[1].pageNo)
            try store.connection.run(
                "UPDATE page SET row_count = ? WHERE feed_id = ? AND page_no = ?", 20, record.id, pages[0].pageNo)
            try store.connection.run(
                "UPDATE page SET row_count = 0 WHERE feed_id = ? AND page_no = ?", record.id, pages[1].pageNo)
        }
        #expect(try test.violations().map(\.rule) == ["empty_page"])
    }
}
