import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The reader's place: the scroll anchor through changes, and the position saved across launches.
@Suite(.limit(minutes: 3)) struct ReadingPositionTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func aRefreshThatInsertsAboveTheScreenSaysWhichRowToKeepStill() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.setVisibleRows(5..<9, offset: 12)
        server.items = .posts("n", 3) + server.items
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.anchor == ScrollAnchor(itemID: "p5", rowBefore: 5, rowAfter: 8, offset: 12))
        #expect(await feed.readingPosition == ReadingPosition(itemID: "p5", row: 8, offset: 12))
        await feed.loadNextPage()
        #expect(await feed.snapshot.anchor == nil, "rows added below the screen move nothing")
    }

    @Test func whenTheRowOnTopIsRemovedTheNextRowBecomesTheAnchor() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.setVisibleRows(5..<9)
        try await feed.insert(Post(id: "local"), at: 0)
        try await feed.remove(id: "p5")
        let snapshot = await feed.snapshot
        #expect(snapshot.anchor == ScrollAnchor(itemID: "p6", rowBefore: 7, rowAfter: 6, offset: 0))
    }

    @Test func whenARefreshDeletesTheRowOnTopTheSnapshotNamesItsNeighbourThoughThatRowStaysPut() async throws {
        let server = ModelServer((0..<100).map { Post(id: "p\(99 - $0)") }, pageSize: 100)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.setVisibleRows(10..<15)  // row 10 is p89
        #expect(await feed.snapshot.rows[10]?.id == "p89")
        // The server deletes p94 (above the screen) and p89 (the row on top), and publishes two.
        server.items = [Post(id: "new1"), Post(id: "new0")] + server.items.filter { !["p94", "p89"].contains($0.id) }
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.change.insertedRows == [[0, 0], [0, 1]])
        #expect(snapshot.change.deletedRows == [[0, 5], [0, 10]])
        // p88 was row 11 and is row 11 again: the row on top changed, so the app must be told.
        #expect(snapshot.anchor == ScrollAnchor(itemID: "p88", rowBefore: 11, rowAfter: 11, offset: 0))
    }

    @Test func theFeedOpensAtTheSavedPositionWithItsWindowAroundIt() async throws {
        let server = ModelServer(.posts("p", 500), pageSize: 100)
        let policy = FeedPolicy(refreshOnOpen: .never, windowSize: 60, keepsReadingPosition: true)
        do {
            let feed = try test.feed(server.source, policy: policy)
            await feed.refresh()
            for _ in 0..<4 { await feed.loadNextPage() }
            await feed.setVisibleRows(300..<310, offset: 12.5)
            try await feed.saveReadingPosition()
        }
        let reopened = try test.feed(server.source, policy: policy)
        let snapshot = await reopened.snapshot
        #expect(snapshot.anchor == ScrollAnchor(itemID: "p300", rowBefore: nil, rowAfter: 300, offset: 12.5))
        #expect(snapshot.rows.loadedRange.contains(300), "the window is read around the saved row, not the top")
        #expect(snapshot.rows.loadedRange.count == 50, "opening decodes a first screen there, not a whole window")
        #expect(snapshot.rows[300]?.id == "p300")
        #expect(await reopened.readingPosition == ReadingPosition(itemID: "p300", row: 300, offset: 12.5))
    }

    @Test func aPositionWhoseItemIsGoneOpensAtItsSavedRow() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 30)
        let policy = FeedPolicy(refreshOnOpen: .never, keepsReadingPosition: true)
        do {
            let feed = try test.feed(server.source, policy: policy)
            await feed.refresh()
            await feed.setVisibleRows(12..<15)
            try await feed.saveReadingPosition()
            try await feed.remove(id: "p12")
        }
        let snapshot = await (try test.feed(server.source, policy: policy)).snapshot
        #expect(snapshot.anchor == ScrollAnchor(itemID: "p13", rowBefore: nil, rowAfter: 12, offset: 0))
    }

    /// A feed of p0…p29 that keeps its reading position, refreshed.
    func keepingFeed() async throws -> (Feed<Post>, ModelServer, FeedPolicy) {
        let server = ModelServer(.posts("p", 30), pageSize: 30)
        let policy = FeedPolicy(refreshOnOpen: .never, keepsReadingPosition: true)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        return (feed, server, policy)
    }

    @Test func aServerMarkerMovesTheReaderAndEverySaveIsPublished() async throws {
        let (feed, _, _) = try await keepingFeed()
        let saves = await feed.readingPositions
        #expect(try await feed.moveReadingPosition(to: "p20", offset: 4))
        #expect(await feed.snapshot.anchor == ScrollAnchor(itemID: "p20", rowBefore: nil, rowAfter: 20, offset: 4))
        var iterator = saves.makeAsyncIterator()
        #expect(await iterator.next() == ReadingPosition(itemID: "p20", row: 20, offset: 4))
        #expect(try await feed.moveReadingPosition(to: "missing") == false)
    }

    @Test func scrollingSavesTheLastPlaceWithAtMostOneWriteASecond() async throws {
        let (feed, server, policy) = try await keepingFeed()
        let saves = await feed.readingPositions
        for row in 0..<20 { await feed.rowDidAppear(row) }
        // The last place is always saved, a second later at most.
        test.clock.advance(by: .seconds(1))
        var saved: [String] = []
        for await position in saves {
            saved.append(position.itemID)
            if position.itemID == "p19" { break }
        }
        #expect(saved.first == "p0", "the first move is saved at once")
        #expect(saved.count < 20, "at most one write a second, not one a move: \(saved)")
        let reopened = try test.feed(server.source, policy: policy)
        #expect(await reopened.snapshot.anchor?.itemID == "p19")
    }
}

/// The anchor when a refresh replaces the whole window.
extension ReadingPositionTests: FeedRuleSuite {
    /// The reader's row disappears in a refresh that replaces the whole list: any anchor emitted must
    /// name a row the new list has.
    @Test func theAnchorWhenTheWholeWindowIsReplaced() async throws {
        let pages = Locked([Self.posts("p", 0..<30), Self.posts("x", 0..<30)])
        let source = ScriptedSource<Post> { _ in
            var page: [Post] = []
            pages.mutate { page = $0.count > 1 ? $0.removeFirst() : $0[0] }
            return Page(items: page, olderCursor: "c1")
        }
        let feed = try test.feed(
            source,
            policy: FeedPolicy(
                refreshOnOpen: .never, gapPolicy: .replace, prefetchDistance: 0, keepsReadingPosition: true))
        await feed.refresh()
        await feed.rowDidAppear(12)
        let recorder = await SnapshotRecorder(feed)
        await feed.refresh()
        #expect(try test.idsOnDisk() == Self.ids("x", 0..<30))
        try await check(recorder, feed, "whole window replaced")
    }
}
