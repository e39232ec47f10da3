import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Server deletions meeting optimistic edits still waiting for their call.
@Suite(.limit(minutes: 3)) struct ServerDeletionPendingEditTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A next page that repeats rows and deletes p15 while p16's optimistic removal is pending: the
    /// page brings p16 back (appended), the pending edit takes it away again.
    @Test func aNextPageThatDeletesWhileARemovalIsPending() async throws {
        let server = ModelServer(.posts("p", 40), pageSize: 10)
        let feed = try test.feed(server.pageNumberSource)
        await feed.refresh()
        await feed.loadNextPage()
        let recorder = await SnapshotRecorder(feed)
        let (stream, answer) = AsyncStream.makeStream(of: Void.self)
        let removal = Task { try await feed.remove(id: "p17") { _ in for await _ in stream {} } }
        while try await !feed.pendingEdits().contains(where: { $0.itemID == "p17" }) { await Task.yield() }
        server.items = .posts("x", 6) + server.items.filter { $0.id != "p15" }
        await feed.loadNextPage()  // p14, p16, p17, p18…p24
        let ids = await feed.snapshot.ids
        #expect(ids == (0..<25).filter { $0 != 15 && $0 != 17 }.map { "p\($0)" })
        try await ReferenceModelTests.check(recorder, feed, test, "pending removal")
        answer.finish()
        _ = try await removal.value
    }

    /// p1 has an optimistic update pending when a fill proves it deleted; then the call fails and
    /// the edit rolls back: p1 does not come back.
    @Test func aRowWithAPendingUpdateDeletedOnTheServerStaysDeletedAfterARollback() async throws {
        let (feed, server, _) = try await test.timelineWithAGap()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        let recorder = await SnapshotRecorder(feed)
        let (stream, answer) = AsyncStream.makeStream(of: Void.self)
        struct Refused: Error {}
        let update = Task {
            try await feed.edit(id: "p1", { $0.revision = 9 }) { _ in
                for await _ in stream {}
                throw Refused()
            }
        }
        while try await !feed.pendingEdits().contains(where: { $0.itemID == "p1" }) { await Task.yield() }
        server.items.removeAll { $0.id == "p1" }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        #expect(await !feed.snapshot.ids.contains("p1"))
        answer.finish()
        await #expect(throws: Refused.self) { try await update.value }
        #expect(await !feed.snapshot.ids.contains("p1"))
        #expect(try await feed.pendingEdits().isEmpty)
        try await ReferenceModelTests.check(recorder, feed, test, "pending update")
    }

    /// p1's optimistic removal is pending when a fill lists p0 and p2 without it (the delete reached
    /// the server; its answer is lost). The call then fails and the edit rolls back: the page proved
    /// p1 gone from the server, so it does not come back.
    @Test func aRemovalRolledBackAfterAPageProvedTheItemDeletedDoesNotBringItBack() async throws {
        let (feed, server, _) = try await test.timelineWithAGap()
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))
        let recorder = await SnapshotRecorder(feed)
        let (stream, answer) = AsyncStream.makeStream(of: Void.self)
        struct TimedOut: Error {}
        let removal = Task {
            try await feed.remove(id: "p1") { _ in
                for await _ in stream {}
                throw TimedOut()
            }
        }
        while try await !feed.pendingEdits().contains(where: { $0.itemID == "p1" }) { await Task.yield() }
        server.items.removeAll { $0.id == "p1" }
        await feed.loadGap(try #require(await feed.snapshot.gaps.first))  // …, n24, p0, p2, p3…
        answer.finish()
        await #expect(throws: TimedOut.self) { try await removal.value }
        #expect(await !feed.snapshot.ids.contains("p1"), "p1 is not on the server")
        try await ReferenceModelTests.check(recorder, feed, test, "rolled-back removal")
    }
}
