import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// A row's index comes from the counts of the pages above it and the rows above it in its page, and
/// always equals the count of rows above it: on pages added below and on top, on pages longer than
/// the walk within a page, and on a file whose page counts were edited by hand.
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
            var cursor: String?
            // Deeper than the rows counted before the pages are read.
            for page in 0..<60 {
                let next = "c\(page)"
                try store.appendPage(
                    Fixtures.items("o\(page)-", count: page % 3 == 0 ? 1 : 7),
                    page: Fixtures.olderPage(from: cursor, to: next), to: &feed)
                cursor = next
            }
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
            var cursor: String?
            for page in 0..<80 {
                try store.appendPage(
                    Fixtures.items("p\(page)-", count: 4), page: Fixtures.olderPage(from: cursor, to: "c\(page)"),
                    to: &feed)
                cursor = "c\(page)"
            }
        }
        _ = try queue.write { store in try store.connection.run(sql) }
        try expectEveryIndexIsTheCount()
    }

    private func expectEveryIndexIsTheCount(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try queue.read { store in
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
    }
}
