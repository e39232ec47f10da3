import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The page store's writes: atomic pages, exact round trips, migrations.
@Suite(.limit(minutes: 3)) struct PageStoreTests {
    let directory: TemporaryDirectory
    let queue: DatabaseQueue

    init() throws {
        directory = try TemporaryDirectory()
        queue = try DatabaseQueue(path: directory.path("cache.db"))
    }

    @Test func aPageWriteThatFailsMidwayLeavesNothingBehind() throws {
        try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try store.appendPage(
                Fixtures.items("a", count: 5), page: Fixtures.olderPage(from: nil, to: "c1"), to: &feed)
        }
        let before = try queue.read { try $0.feed(key: "home") }
        // The fifth new item repeats an id already in the feed: the insert fails after four rows went in.
        var poisoned = Fixtures.items("new", count: 4)
        poisoned.append(EncodedItem(itemID: "a2", payload: Data("{}".utf8)))
        #expect(throws: StorageError.self) {
            try queue.write { store in
                var feed = try #require(try store.feed(key: "home"))
                try store.prependPage(
                    poisoned, page: PageWrite(request: .first, requestCursor: nil, olderCursor: "x", newerCursor: "n"),
                    to: &feed)
            }
        }
        #expect(try queue.read { try $0.feed(key: "home") } == before)
        #expect(try Fixtures.rows(of: "home", in: queue).map(\.itemID) == (0..<5).map { "a\($0)" })
        #expect(try queue.read { try $0.pages(of: #require(try $0.feed(key: "home"))).count } == 1)
    }

    @Test func appendingDropsIdsTheFeedAlreadyHas() throws {
        let inserted = try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try store.appendPage(
                Fixtures.items("a", count: 3), page: Fixtures.olderPage(from: nil, to: "c1"), to: &feed)
            return try store.appendPage(
                Fixtures.items("a", count: 5), page: Fixtures.olderPage(from: "c1", to: nil), to: &feed)
        }
        #expect(inserted.map(\.offset) == [3, 4])
        #expect(inserted.map(\.position) == [3 * PageStore.positionStep, 4 * PageStore.positionStep])
        let feed = try #require(try queue.read { try $0.feed(key: "home") })
        #expect(feed.rowCount == 5)
        #expect(feed.endReached)
        #expect(feed.oldestCursor == nil)
        #expect(try Fixtures.rows(of: "home", in: queue).map(\.itemID) == ["a0", "a1", "a2", "a3", "a4"])
    }

    @Test(arguments: [0, 1, 2, 31, 32, 33, 70])
    func rowsAreFoundByIdAnyNumberAtOnce(asked: Int) throws {
        // Every third id is one the feed lacks, and one is asked twice.
        let ids = (0..<asked).map { $0 % 3 == 2 ? "missing\($0)" : "a\($0)" } + (asked > 2 ? ["a0"] : [])
        let found = try queue.write { store in
            var feed = try store.ensureFeed(key: "home")
            try store.appendPage(
                Fixtures.items("a", count: 80), page: Fixtures.olderPage(from: nil, to: "c1"), to: &feed)
            return try store.items(withIDs: ids, in: feed)
        }
        #expect(Set(found.keys) == Set(ids.filter { $0.hasPrefix("a") }))
        #expect(found.allSatisfy { id, row in row.itemID == id })
    }

    @Test func hostileIdsAndPayloadsRoundTripExactly() throws {
        let hostile = [
            "'; DROP TABLE item; --", "\"quoted\"", "semi;colon", "100%_like", "naïve café", "🧵🙂‍↔️", "\\back\\slash",
            String(repeating: "long-", count: 2048),
        ]
        for key in hostile {
            let items = hostile.map { EncodedItem(itemID: $0 + key.prefix(3), section: key, payload: Data($0.utf8)) }
            try queue.write { store in
                var feed = try store.ensureFeed(key: key)
                try store.appendPage(items, page: Fixtures.olderPage(from: key, to: key + "→next"), to: &feed)
            }
            let rows = try Fixtures.rows(of: key, in: queue)
            #expect(rows.map(\.itemID) == items.map(\.itemID))
            #expect(rows.map(\.payload) == items.map(\.payload))
            #expect(rows.map(\.section) == items.map(\.section))
            let feed = try #require(try queue.read { try $0.feed(key: key) })
            #expect(feed.key == key)
            #expect(feed.oldestCursor == key + "→next")
        }
        #expect(try queue.read { try $0.feeds().count } == hostile.count)
    }

    @Test func migrationsRunFromEmptyAndOnlyOnce() throws {
        let path = directory.path("fresh.db")
        let connection = try Connection(path: path, mode: .readWrite)
        let migrator = Migrator()
        #expect(try migrator.status(of: connection) == .empty)
        #expect(try migrator.migrate(connection).map(\.version) == migrator.migrations.map(\.version))
        #expect(try migrator.status(of: connection) == .current)
        #expect(try connection.int64("PRAGMA user_version") == Int64(migrator.latestVersion))
        #expect(try connection.int64("PRAGMA application_id") == Migrator.applicationID)
        #expect(try migrator.migrate(connection).isEmpty, "an up-to-date file is left alone")
    }

    @Test func readersOnOtherConnectionsOnlyEverSeeWholePages() throws {
        let path = directory.path("shared.db")
        let writer = try DatabaseQueue(path: path)
        try writer.write { _ = try $0.ensureFeed(key: "home") }
        let pageSize = 50
        let pages = 200
        // The writer runs on a thread of its own, not in a task: this test's loop holds its thread
        // while it reads, and on a machine with two cores the task pool may have no other.
        let written = Locked<Result<Void, any Error>?>(nil)
        let ended = DispatchSemaphore(value: 0)
        let writing = Thread {
            defer { ended.signal() }
            written.value = Result {
                for page in 0..<pages {
                    try writer.write { store in
                        guard var feed = try store.feed(key: "home") else { throw StorageError.closed }
                        try store.appendPage(
                            Fixtures.items("p\(page)-", count: pageSize),
                            page: Fixtures.olderPage(from: "c\(page)", to: "c\(page + 1)"), to: &feed)
                    }
                }
            }
        }
        writing.start()
        let reader = try PageStore(path: path, mode: .readWrite)
        var observations = 0
        var writerDone = false
        repeat {
            // Read what the writer's last word promises: one read after it ended sees its last page.
            writerDone = written.value != nil
            let (rows, feed, pageRows) = try reader.connection.readTransaction {
                let feed = try #require(try reader.feed(key: "home"))
                let rows = try reader.connection.int64("SELECT count(*) FROM item") ?? -1
                let pageRows = try reader.pages(of: feed).reduce(0) { $0 + $1.rowCount }
                return (Int(rows), feed, pageRows)
            }
            #expect(rows % pageSize == 0)
            #expect(rows == feed.rowCount)
            #expect(rows == pageRows)
            #expect(feed.oldestCursor == (rows == 0 ? nil : "c\(rows / pageSize)"))
            observations += 1
            if rows == pageSize * pages { break }
        } while !writerDone
        ended.wait()
        try #require(written.value).get()
        #expect(observations > 1)
    }
}
