import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Page groups under every writer: a feed replaced whole, a write rolled back after making them, a
/// schema change rolled back, and a second store on the file keep every row index the count of the
/// rows above it.
extension RowIndexByPagesTests {
    static func page(_ n: Int) -> PageWrite {
        PageWrite(request: .first, requestCursor: nil, olderCursor: nil, newerCursor: "n\(n)")
    }

    /// A feed of one page with `prepended` pages on top (page numbers below zero), with its groups.
    func writeFeedGrownUpwards(prepended: Int) throws {
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try store.appendPage(
                Fixtures.items("o", count: 3), page: Fixtures.olderPage(from: nil, to: "c0"), to: &feed)
            for n in 0..<prepended {
                _ = try store.prependPage(Fixtures.items("n\(n)-", count: 1), page: Self.page(n), to: &feed)
            }
            _ = try store.rowIndex(ofPosition: try #require(feed.bottomPosition), in: feed)
            #expect(try store.hasPageGroups(feed.id))
        }
    }

    @Test func aFeedReplacedWholeByARefreshKeepsTrueRowIndexes() throws {
        try writeFeedGrownUpwards(prepended: 300)
        try queue.write { store in
            var feed = try #require(try store.feed(key: "home"))
            // A first page that shares no row with the cache (RefreshMerge's .noOverlap).
            try store.replaceFeed(with: Fixtures.items("fresh", count: 3), page: Self.page(999), in: &feed)
            try Self.appendPages(100, named: "a", rows: { _ in 10 }, to: &feed, in: store)
        }
        try expectEveryIndexIsTheCount(writing: true)
        try expectEveryIndexIsTheCount(writing: false)
        try expectGroupsAreThePagesSums()
    }

    @Test func aFeedReplacedWholeByARefreshPassesVerify() throws {
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try Self.appendPages(200, named: "o", rows: { _ in 2 }, to: &feed, in: store)
            _ = try store.rowIndex(ofPosition: try #require(feed.bottomPosition), in: feed)
        }
        try queue.write { store in
            var feed = try #require(try store.feed(key: "home"))
            try store.replaceFeed(with: Fixtures.items("fresh", count: 3), page: Self.page(1), in: &feed)
        }
        let violations = try queue.read { try $0.verify() }
        #expect(violations.map(\.rule).isEmpty, "\(violations.map(\.detail))")
    }

    @Test func aRefreshThatSharesNoRowWithADeepFeedKeepsTrueRowIndexes() async throws {
        // Through the public API: a feed grown by 300 one-row refreshes, a deep removal that makes its
        // groups, then a refresh that shares nothing with it (gapPolicy .replace) and 99 next pages.
        let test = try FeedTestCase()
        let server = ModelServer([Post(id: "o0"), Post(id: "o1")], pageSize: 10)
        let app = try test.feed(server.source)
        await app.refresh()
        for n in 0..<300 {
            server.items = [Post(id: "n\(n)")] + server.items
            await app.refresh()
        }
        #expect(await app.snapshot.rows.count == 302)
        #expect(try await app.remove(id: "o1"))
        let queue = try DatabaseQueue(path: test.path)
        #expect(try queue.read { store in try store.hasPageGroups(try #require(try store.feed(key: "home")).id) })
        server.items = [Post].posts("z", 1_000)
        await app.refresh()
        for _ in 0..<99 { await app.loadNextPage() }
        let recorder = await SnapshotRecorder(app)
        #expect(try await app.remove(id: "z500"))
        let snapshots = await recorder.snapshots(settlingOn: app)
        let deleted = snapshots.last?.change.deletedRows ?? []
        #expect(deleted == [IndexPath(indexes: [0, 500])], "the removal of row 500 is told as \(deleted)")
        try queue.write { store in
            let record = try #require(try store.feed(key: "home"))
            let rows = try store.window(of: record, from: .top, limit: Int.max)
            var wrong: [Int] = []
            for (index, row) in rows.enumerated()
            where try store.rowIndex(ofPosition: row.position, in: record) != index {
                wrong.append(index)
            }
            #expect(
                wrong.isEmpty, "\(wrong.count) of \(rows.count) rows have a wrong index, first \(wrong.first ?? -1)")
        }
    }

    struct Boom: Error {}

    @Test func aWriteThatRollsBackAfterMakingGroupsLeavesNoLyingCache() throws {
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try Self.appendPages(200, named: "o", rows: { _ in 2 }, to: &feed, in: store)
        }
        #expect(throws: Boom.self) {
            try queue.write { store in
                let feed = try #require(try store.feed(key: "home"))
                _ = try store.rowIndex(ofPosition: try #require(feed.bottomPosition), in: feed)
                #expect(try store.hasPageGroups(feed.id))
                throw Boom()
            }
        }
        #expect(try queue.read { store in try store.connection.integer("SELECT count(*) FROM page_group") } == 0)
        #expect(try !queue.read { store in try store.hasPageGroupTriggers() })
        // The next write finds neither groups nor triggers, and makes both.
        try queue.write { store in
            var feed = try #require(try store.feed(key: "home"))
            _ = try store.removeItem("o150-0", from: &feed)
            _ = try store.rowIndex(ofPosition: try #require(feed.bottomPosition), in: feed)
        }
        #expect(try queue.read { store in try store.hasPageGroupTriggers() })
        try ForeignWriter.execute(
            "DELETE FROM item WHERE item_id = 'o3-0'; UPDATE page SET row_count = 1 WHERE page_no = 3",
            on: directory.path("cache.db"))
        try queue.write { store in
            var feed = try #require(try store.feed(key: "home"))
            feed.rowCount -= 1
            try store.save(&feed)
        }
        try expectEveryIndexIsTheCount(writing: true)
        try expectGroupsAreThePagesSums()
    }

    @Test func aSchemaChangeRolledBackDoesNotMakeTheStoreTrustGroupsWithoutTriggers() throws {
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try Self.appendPages(200, named: "o", rows: { _ in 2 }, to: &feed, in: store)
            _ = try store.rowIndex(ofPosition: try #require(feed.bottomPosition), in: feed)
        }
        // A write that changed the schema (as making the search tables does) asks about the triggers, then rolls back.
        #expect(throws: Boom.self) {
            try queue.write { store in
                try store.connection.execute("CREATE TABLE scratch (x)")
                let feed = try #require(try store.feed(key: "home"))
                _ = try store.rowIndex(ofPosition: try #require(feed.bottomPosition), in: feed)
                throw Boom()
            }
        }
        // sqlite3 drops a trigger (the schema's version is the rolled-back write's again) and deletes a row.
        try ForeignWriter.execute(
            """
            DROP TRIGGER page_group_delete;
            DELETE FROM item WHERE item_id = 'o3-0'; UPDATE page SET row_count = 1 WHERE page_no = 3;
            UPDATE feed SET row_count = row_count - 1;
            """, on: directory.path("cache.db"))
        try expectEveryIndexIsTheCount(writing: true)
    }

    @Test func twoStoresOnOneFileKeepEachOthersGroups() throws {
        let other = try DatabaseQueue(path: directory.path("cache.db"))
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try Self.appendPages(200, named: "o", rows: { _ in 2 }, to: &feed, in: store)
            _ = try store.rowIndex(ofPosition: try #require(feed.bottomPosition), in: feed)
        }
        try other.write { store in
            var feed = try #require(try store.feed(key: "home"))
            _ = try store.removeItem("o10-0", from: &feed)
            try store.insertItem(
                EncodedItem(itemID: "local", section: nil, payload: Data("{}".utf8)), atRow: 250, local: true, in: &feed
            )
            let pages = try store.pages(of: feed)
            _ = try store.cut(&feed, keepingPages: pages.count - 20, of: pages)
        }
        try expectEveryIndexIsTheCount(writing: false)
        try expectEveryIndexIsTheCount(writing: true)
        try expectGroupsAreThePagesSums()
    }
}
