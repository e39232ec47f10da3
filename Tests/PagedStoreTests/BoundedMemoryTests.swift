import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// Architecture rule 11: a large feed is read in windows, never decoded whole.
@Suite(.limit(minutes: 15)) struct BoundedMemoryTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func aLargeCachedFeedOpensAndScrollsDecodingOnlyItsWindow() async throws {
        let rowCount = 100_000
        try DatabaseQueue(path: test.path).write { store in
            var feed = try store.ensureFeed(key: "home")
            let items = (0..<rowCount).map {
                EncodedItem(itemID: "p\($0)", payload: Data(#"{"id":"p\#($0)","revision":0}"#.utf8))
            }
            try store.appendPage(
                items, page: PageWrite(request: .seed, requestCursor: nil, olderCursor: nil, newerCursor: nil),
                to: &feed)
            feed.loaded = true
            try store.save(&feed)
        }
        let decodes = Locked(0)
        let codec = ItemCodec<Post>(
            storesText: true, encode: { try JSONEncoder().encode($0) },
            decode: { data in
                _ = decodes.increment()
                return try JSONDecoder().decode(Post.self, from: data)
            })
        let policy = FeedPolicy(refreshOnOpen: .never, windowSize: 200)
        let feed = try test.store().feed("home", source: ScriptedSource<Post>(), policy: policy, codec: codec)
        let opened = await feed.snapshot
        #expect(opened.rows.count == rowCount)
        #expect(decodes.value == 50, "opening decodes the first screen only")
        #expect(opened.rows[49]?.id == "p49")
        #expect(opened.rows[50] == nil)
        #expect(opened.rows[50_000] == nil, "rows outside the window are placeholders")

        for row in stride(from: 0, to: rowCount, by: 10) { await feed.rowDidAppear(row) }
        let scrolled = await feed.snapshot
        #expect(scrolled.rows[rowCount - 1]?.id == "p\(rowCount - 1)")
        #expect(scrolled.rows.loadedRange.count <= 200)
        #expect(decodes.value < rowCount + 1000, "each row decoded about once while scrolling")

        await feed.rowDidAppear(10)  // jump back to the top
        #expect(await feed.snapshot.rows[10]?.id == "p10")
    }
}

/// A window smaller than the feed holds, at every index, the row the file has there.
extension BoundedMemoryTests {
    /// A window smaller than the feed: after prepends, gap fills, local edits and trims, every loaded
    /// row is the row the file has at that index.
    @Test func aSmallWindowAlwaysHoldsTheRowsTheFileHasThere() async throws {
        let server = ModelServer(.posts("p", 60), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap, windowSize: 8, firstScreenRows: 4)
        let feed = try test.feed(server.source, policy: policy)
        func check(_ step: String) async throws {
            await feed.waitUntilIdle()
            let snapshot = await feed.snapshot
            let disk = try test.idsOnDisk()
            #expect(snapshot.rows.count == disk.count, "\(step)")
            for row in snapshot.rows.loadedRange where row < disk.count {
                #expect(snapshot.rows.id(at: row) == disk[row], "\(step): row \(row)")
            }
        }
        await feed.refresh()
        await feed.loadNextPage()
        await feed.loadNextPage()
        await feed.rowDidAppear(15)
        try await check("scrolled")
        server.items = .posts("n", 3) + server.items
        await feed.refresh()
        try await check("prepend while scrolled")
        await feed.rowDidAppear(2)
        try await check("back to top")
        server.items = .posts("m", 15) + server.items
        await feed.refresh()
        try await check("keepGap refresh")
        await feed.rowDidAppear(12)
        try await feed.insert(Post(id: "local"), at: 10)
        try await check("local insert under the gap")
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        try await check("gap fill")
        try await feed.remove(id: "m3")
        try await feed.update(Post(id: "p2", revision: 3))
        try await check("edits")
        await feed.rowDidAppear(await feed.snapshot.rows.count - 1)
        try await check("bottom")
        try await feed.trim(maxRows: 5)
        try await check("trim")
    }
}
