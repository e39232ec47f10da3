import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A queued edit dropped unsent by another store's write (its outbox settling a rejected insert)
/// reaches every open feed of its key as a `pendingEditDropped` event, by the outbox's history in the
/// file, as the rows reach them by the change record; the feed whose write dropped it reports it
/// once.
@Suite(.limit(minutes: 2)) struct DroppedEditsReachEveryOpenFeedTests {
    let test: FeedTestCase
    let server = ModelServer(.posts("p", 4), pageSize: 10)
    init() throws { test = try FeedTestCase() }

    /// Queues a post and a like of it on `feed`; the like's key.
    func queueAPostAndALike(on feed: Feed<Note>) async throws -> UUID? {
        try await feed.enqueue("post", inserting: Note(id: "draft"), at: 0, argument: Liked(liked: false))
        return try await feed.enqueue("like", id: "draft", argument: Liked(liked: true)) { $0.liked = true }
    }

    /// Rejects the post from `store`'s outbox, confirming anything else, and waits until it is empty.
    func rejectThePost(from store: FeedStore) async {
        await store.outbox.register("like", as: Liked.self) { _ in .confirmed }
        await store.outbox.register("post", as: Liked.self) { _ in .rejected(reason: "HTTP 422") }
        await store.outbox.waitUntilEmpty()
    }

    func dropEvents(_ recorder: EventRecorder, _ feed: Feed<Note>) async -> [[String]] {
        await recorder.events(settlingOn: feed).filter { $0.kind == .pendingEditDropped }.map(\.itemIDs)
    }

    @Test func aDropByAStoreWithNoFeedOpenIsReportedByTheFeedShowingIt() async throws {
        let (_, feed) = try await test.openNotes(server)
        let events = await EventRecorder(feed)
        let list = await ObservedList(feed)
        let like = try await queueAPostAndALike(on: feed)
        await rejectThePost(from: try test.store())

        let gone = await list.firstSnapshot(within: .seconds(60)) { !$0.ids.contains("draft") }
        #expect(gone != nil, "the list never followed the rejection")
        #expect(list.rejectedChanges.isEmpty)
        let history = try DatabaseQueue(path: test.path).read { try $0.droppedQueuedEdits() }
        #expect(history.map(\.idempotencyKey) == [like?.uuidString])
        #expect(await dropEvents(events, feed) == [["draft"]])
    }

    @Test func aDropIsReportedOnceByEachOpenFeedWhicheverStoreSettledIt() async throws {
        let (_, mine) = try await test.openNotes(server)
        let myEvents = await EventRecorder(mine)
        _ = try await queueAPostAndALike(on: mine)
        let (other, theirs) = try await test.openNotes(server, refresh: false)
        let theirEvents = await EventRecorder(theirs)
        let myList = await ObservedList(mine)
        await rejectThePost(from: other)
        _ = await myList.firstSnapshot(within: .seconds(60)) { !$0.ids.contains("draft") }
        #expect(await dropEvents(theirEvents, theirs) == [["draft"]], "the feed that settled it")
        #expect(await dropEvents(myEvents, mine) == [["draft"]], "the feed that made the edit")
        // Its own drop, met again in the history when it follows a later write, is not reported twice.
        try await theirs.update(Note(id: "n1", liked: true))
        _ = await myList.firstSnapshot(within: .seconds(60)) { $0.rows.loadedItems.contains { $0.liked } }
        try await mine.update(Note(id: "n2", liked: true))
        await theirs.refresh()
        #expect(await dropEvents(theirEvents, theirs) == [["draft"]])
        #expect(await dropEvents(myEvents, mine) == [["draft"]])
    }
}
