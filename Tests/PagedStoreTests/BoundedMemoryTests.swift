import Foundation
import PagedStoreTesting
import Testing

@testable import PagedStore

/// Architecture rule 11: a large feed is read in windows, never decoded whole.
@Suite struct BoundedMemoryTests {
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
        let decodes = Counter()
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
