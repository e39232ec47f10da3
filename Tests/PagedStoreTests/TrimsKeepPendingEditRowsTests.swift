import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A trim the user did not ask for (the policy's row limit after a refresh, its age limit when the
/// list appears, a memory warning) never cuts the row of a pending edit: the edit, queued or being
/// saved, keeps showing where the user made it. Once it settles, the same trim cuts the row.
@Suite(.limit()) struct TrimsKeepPendingEditRowsTests {
    let test: FeedTestCase
    /// Two pages of five, chained by cursor: a trim may cut exactly between them.
    let list = ModelServer(.posts("p", 10), pageSize: 5)
    init() throws { test = try FeedTestCase() }

    /// The feed's ten rows, with the edited post (p8) on the second page.
    func loadBothPages(_ feed: Feed<Post>) async {
        await feed.refresh()
        await feed.loadNextPage()
    }

    @Test func aRefreshsRowLimitKeepsTheRowOfAQueuedEditUntilItIsSent() async throws {
        let store = try test.store()
        let feed = try test.feed(list.source, policy: FeedPolicy(refreshOnOpen: .never, maxRows: 5), store: store)
        await loadBothPages(feed)
        try #require(await feed.snapshot.ids.count == 10, "next pages are not trimmed")
        _ = try await feed.enqueue("revise", id: "p8", argument: Revision(revision: 9)) { $0.revision = 9 }

        await feed.refresh()
        #expect(await feed.snapshot.ids.count == 10, "the trim keeps the page of the edited row")
        #expect(await feed.snapshot.rows.loadedItems.contains(Post(id: "p8", revision: 9)))
        #expect(try test.idsOnDisk().contains("p8"))

        let server = MutationServer()
        await store.outbox.register("revise", as: Revision.self) { edit in
            _ = server.receive("\(edit.itemID)=\(edit.argument.revision)", key: edit.idempotencyKey)
            return .confirmed
        }
        await store.outbox.waitUntilEmpty()
        await feed.refresh()
        #expect(
            await feed.snapshot.ids == (0..<5).map { "p\($0)" }, "sent, the edit keeps nothing: the limit holds again")
    }

    @Test func aTrimOnAMemoryWarningKeepsTheRowOfAnEditBeingSaved() async throws {
        let feed = try test.feed(list.source)
        await loadBothPages(feed)
        let found = try await feed.edit(id: "p8") {
            $0.revision = 9
        } commit: { _ async throws in
            // The memory warning comes while the server call runs.
            #expect(try await feed.trim(maxRows: 5) == 0, "the edit's row is on the last page: nothing to cut")
            #expect(await feed.snapshot.rows.loadedItems.contains(Post(id: "p8", revision: 9)))
        }
        #expect(found)
        #expect(try await feed.trim(maxRows: 5) == 5, "saved, the row goes with its page")
    }

    @Test func anAgeLimitWhenTheListAppearsKeepsTheRowOfAQueuedEdit() async throws {
        let store = try test.store()
        let feed = try test.feed(list.source, store: store)
        await loadBothPages(feed)
        _ = try await feed.enqueue("revise", id: "p8", argument: Revision(revision: 9)) { $0.revision = 9 }
        store.close()

        test.clock.advance(by: .seconds(2 * 86_400))
        let aged = try test.feed(list.source, policy: FeedPolicy(refreshOnOpen: .never, maxAge: 86_400))
        await aged.start()
        #expect(await aged.snapshot.ids.count == 10, "every page is older than a day; the edit keeps both")
        #expect(await aged.snapshot.rows.loadedItems.contains(Post(id: "p8", revision: 9)))
    }

    /// A queued edit whose row left under it (a new cache version cleared the feed) is detached: it
    /// shows on no row and is never applied to one. When the server's pages bring its item back deep
    /// in the list, no trim should keep that row for it: the row shows the server's value, not the
    /// edit, and the row limit should hold.
    @Test func aDetachedEditKeepsNoRowFromTheRowLimit() async throws {
        let first = try test.store()
        let old = try test.feed(list.source, store: first)
        await old.refresh()
        await old.loadNextPage()
        _ = try await old.enqueue("revise", id: "p8", argument: Revision(revision: 9)) { $0.revision = 9 }
        first.close()

        // The app's new model: the rows go, the queued edit stays queued, detached.
        let store = try test.store()
        let policy = FeedPolicy(refreshOnOpen: .never, maxRows: 5, cacheVersion: 1)
        let feed = try test.feed(list.source, policy: policy, store: store)
        #expect(await feed.snapshot.rows.count == 0, "cleared as a model change")
        await feed.refresh()
        await feed.loadNextPage()
        try #require(await feed.snapshot.ids.count == 10, "next pages are not trimmed")
        #expect(await store.outbox.status.edits.count == 1, "still queued")
        #expect(
            !(await feed.snapshot.rows.loadedItems.contains(Post(id: "p8", revision: 9))),
            "detached: the edit shows on no row")
        #expect(try await feed.pendingEdits().isEmpty, "no edit pending on a row of this feed")

        await feed.refresh()
        #expect(
            await feed.snapshot.ids == (0..<5).map { "p\($0)" },
            "the policy's limit: nothing the user sees depends on p8's row")
        let trimmed = try await feed.trim(maxRows: 5)
        let count = await feed.snapshot.ids.count
        #expect(count == 5, "a memory warning trims too (trimmed \(trimmed))")
    }
}
