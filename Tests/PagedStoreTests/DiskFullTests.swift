import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A full disk, simulated with `PRAGMA max_page_count`: the write fails with the storage-full error,
/// nothing of it is kept, reads go on, and trimming frees room for the next write.
@Suite(.limit(minutes: 3)) struct DiskFullTests {
    @Test func aFullDiskFailsTheWriteKeepsTheRowsAndTrimmingMakesRoom() async throws {
        let test = try FeedTestCase()
        let store = try test.store()
        let big = String(repeating: "x", count: 3000)
        let source = ScriptedSource<BigPost> { request in
            let page = Int(request.cursor ?? "0") ?? 0
            return Page(items: (0..<50).map { BigPost(id: "p\(page)-\($0)", text: big) }, olderCursor: "\(page + 1)")
        }
        let feed = try store.feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        await feed.loadNextPage()
        let pages = try store.queue.withoutTransaction { try $0.connection.int64("PRAGMA page_count") ?? 0 }
        try store.queue.withoutTransaction { try $0.connection.execute("PRAGMA max_page_count = \(pages + 5)") }

        await feed.loadNextPage()
        let failed = await feed.snapshot
        guard case .failed(let error) = failed.nextPage else {
            Issue.record("expected the next page to fail, got \(failed.nextPage)")
            return
        }
        #expect(error.storageKind == .storageFull)
        #expect(failed.rows.count == 100, "the rows stay")
        #expect(try test.idsOnDisk().count == 100, "nothing of the failed page reached the file")
        #expect(try test.recordOnDisk()?.oldestCursor == "2")

        #expect(try await feed.trim(maxRows: 50) == 50)
        await feed.retry()
        #expect(await feed.snapshot.nextPage == .idle)
        #expect(try test.idsOnDisk().count == 100)
        #expect(await feed.snapshot.rows.count == 100)
    }

    struct BigPost: FeedItem, Codable {
        let id: String
        let text: String
    }
}
