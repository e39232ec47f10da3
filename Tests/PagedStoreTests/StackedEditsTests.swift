import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Several queued edits of one item (liked, then unliked, offline): sent in order, one at a time,
/// each once; the last shows; a rejected one is rolled back under the later ones, which stay shown
/// on top of the value it restored, also after a relaunch.
@Suite(.limit()) struct StackedEditsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func aLikeThenAnUnlikeMadeOfflineAreSentInOrderEachOnceAndTheLastShows() async throws {
        let (store, feed) = try await test.openNotes(ModelServer(.posts("p", 4), pageSize: 10))
        try await feed.enqueue("like", id: "n1", argument: Liked(liked: true)) { $0.liked = true }
        try await feed.enqueue("like", id: "n1", argument: Liked(liked: false)) { $0.liked = false }
        #expect(await store.outbox.status.count == 2)
        #expect(await feed.snapshot.rows[1]?.liked == false)

        let server = MutationServer()
        await store.outbox.register("like", as: Liked.self) { edit in
            _ = server.receive("\(edit.itemID) liked=\(edit.argument.liked)", key: edit.idempotencyKey)
            return .confirmed
        }
        await store.outbox.waitUntilEmpty()
        #expect(server.sentMutations == ["n1 liked=true", "n1 liked=false"])
        #expect(await feed.snapshot.rows[1]?.liked == false)
        #expect(try await feed.pendingEdits().isEmpty)
    }

    @Test func aRejectedFirstEditIsRolledBackUnderTheLaterOnesAfterARelaunch() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        do {
            let (_, feed) = try await test.openNotes(server)
            try await feed.enqueue("like", id: "n2", argument: Liked(liked: true)) { $0.liked = true }
            try await feed.enqueue("star", id: "n2", argument: Liked(liked: true)) { $0.starred = true }
            #expect(await feed.snapshot.rows[2] == Note(id: "n2", liked: true, starred: true))
        }
        // Relaunched: the changes' closures are gone; what each edit changed is in the file.
        let (store, feed) = try await test.openNotes(server)
        let sent = Locked<[String]>([])
        await store.outbox.register("like", as: Liked.self) { _ in
            sent.mutate { $0.append("like") }
            return .rejected(reason: "HTTP 403")
        }
        await store.outbox.waitFor { $0.count == 1 }
        #expect(await feed.snapshot.rows[2] == Note(id: "n2", liked: false, starred: true))
        #expect(await feed.snapshot.change.reloadedRows == [IndexPath(indexes: [0, 2])])
        await store.outbox.register("star", as: Liked.self) { _ in
            sent.mutate { $0.append("star") }
            return .confirmed
        }
        await store.outbox.waitUntilEmpty()
        #expect(sent.value == ["like", "star"])
        #expect(await feed.snapshot.rows[2] == Note(id: "n2", liked: false, starred: true))
    }

    @Test func aRefreshKeepsEveryPendingEditOnTopOfTheServersNewValue() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let (_, feed) = try await test.openNotes(server)
        try await feed.enqueue("like", id: "n0", argument: Liked(liked: true)) { $0.liked = true }
        try await feed.enqueue("star", id: "n0", argument: Liked(liked: true)) { $0.starred = true }
        server.items[0].revision = 7
        await feed.refresh()
        #expect(await feed.snapshot.rows[0] == Note(id: "n0", liked: true, starred: true, revision: 7))

        // After a relaunch too, by what each edit changed.
        server.items[0].revision = 8
        let (_, relaunched) = try await test.openNotes(server)
        #expect(await relaunched.snapshot.rows[0] == Note(id: "n0", liked: true, starred: true, revision: 8))
    }

    @Test func aRejectedInsertTakesTheEditsMadeOnItWithItUnsentKeptInTheHistoryAndReported() async throws {
        let (store, feed) = try await test.openNotes(ModelServer(.posts("p", 4), pageSize: 10))
        let events = await EventRecorder(feed)
        try await feed.enqueue("post", inserting: Note(id: "draft"), at: 0, argument: Liked(liked: false))
        let like = try await feed.enqueue("like", id: "draft", argument: Liked(liked: true)) { $0.liked = true }
        #expect(await feed.snapshot.rows[0] == Note(id: "draft", liked: true))
        let sent = Locked<[String]>([])
        await store.outbox.register("like", as: Liked.self) { _ in
            sent.mutate { $0.append("like") }
            return .confirmed
        }
        await store.outbox.register("post", as: Liked.self) { _ in
            sent.mutate { $0.append("post") }
            return .rejected(reason: "HTTP 422")
        }
        await store.outbox.waitUntilEmpty()
        #expect(sent.value == ["post"])
        #expect(await feed.snapshot.ids == ["n0", "n1", "n2", "n3"])
        #expect(await feed.snapshot.change.deletedRows == [IndexPath(indexes: [0, 0])])
        let history = try DatabaseQueue(path: test.path).read { try $0.droppedQueuedEdits() }
        #expect(history.map(\.idempotencyKey) == [like?.uuidString], "the like went unsent: its history says so")
        let dropped = await events.events(settlingOn: feed).filter { $0.kind == .pendingEditDropped }
        #expect(dropped.map(\.itemIDs) == [["draft"]])
    }

    @Test func aRejectedInsertWhoseRowsLeftTakesItsDetachedEditsWithItUnsent() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let like: UUID?
        do {
            let (_, feed) = try await test.openNotes(server)
            try await feed.enqueue("post", inserting: Note(id: "draft"), at: 0, argument: Liked(liked: false))
            like = try await feed.enqueue("like", id: "draft", argument: Liked(liked: true)) { $0.liked = true }
        }
        // The app's next model: a new cache version clears the feed, and both edits stay queued, detached.
        let store = try test.store()
        let feed = try store.feed(
            "notes", source: server.noteSource, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 1))
        let events = await EventRecorder(feed)
        await feed.refresh()
        #expect(await store.outbox.status.count == 2)
        let sent = Locked<[String]>([])
        await store.outbox.register("like", as: Liked.self) { _ in
            sent.append("like")
            return .confirmed
        }
        await store.outbox.register("post", as: Liked.self) { _ in
            sent.append("post")
            return .rejected(reason: "HTTP 422")
        }
        await store.outbox.waitUntilEmpty()
        #expect(sent.value == ["post"], "the like of a post the server rejected is never sent")
        let history = try DatabaseQueue(path: test.path).read { try $0.droppedQueuedEdits() }
        #expect(history.map(\.idempotencyKey) == [like?.uuidString])
        let dropped = await events.events(settlingOn: feed).filter { $0.kind == .pendingEditDropped }
        #expect(dropped.map(\.itemIDs) == [["draft"]])
    }

    @Test func aRejectedInsertWhoseRowsLeftLeavesTheItemInsertedAgainSinceToBeSent() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        do {
            let (_, feed) = try await test.openNotes(server)
            try await feed.enqueue("post", inserting: Note(id: "draft"), at: 0, argument: Liked(liked: false))
        }
        // The app's next model clears the feed (the insert stays queued, detached), and the user
        // posts the item again: a new insert, shown on its row.
        let store = try test.store()
        let feed = try store.feed(
            "notes", source: server.noteSource, policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 1))
        await feed.refresh()
        try await feed.enqueue("post", inserting: Note(id: "draft"), at: 0, argument: Liked(liked: true))
        let sent = Locked<[Bool]>([])
        await store.outbox.register("post", as: Liked.self) { edit in
            sent.append(edit.argument.liked)
            return edit.argument.liked ? .confirmed : .rejected(reason: "HTTP 422")
        }
        await store.outbox.waitUntilEmpty()
        #expect(sent.value == [false, true], "the second post is the user's own, sent after the first")
        #expect(try DatabaseQueue(path: test.path).read { try $0.droppedQueuedEdits() }.isEmpty)
        #expect(try test.idsOnDisk(key: "notes").first == "draft", "its row stays: the server has it now")
    }

    @Test func aRemovalAfterAnUpdateIsSentLastAndKeepsTheItemRemovedWhenTheUpdateIsRejected() async throws {
        let (store, feed) = try await test.openNotes(ModelServer(.posts("p", 4), pageSize: 10))
        try await feed.enqueue("like", id: "n1", argument: Liked(liked: true)) { $0.liked = true }
        try await feed.enqueue("delete", removing: "n1", argument: Liked(liked: false))
        #expect(await feed.snapshot.ids == ["n0", "n2", "n3"])
        await #expect(throws: FeedError.self, "a removed item takes no edit, and says why") {
            try await feed.enqueue("like", id: "n1", argument: Liked(liked: false)) { $0.liked = false }
        }
        let sent = Locked<[String]>([])
        await store.outbox.register("delete", as: Liked.self) { _ in
            sent.mutate { $0.append("delete") }
            return .rejected(reason: "HTTP 403")
        }
        await store.outbox.register("like", as: Liked.self) { _ in
            sent.mutate { $0.append("like") }
            return .rejected(reason: "HTTP 403")
        }
        await store.outbox.waitUntilEmpty()
        #expect(sent.value == ["like", "delete"])
        #expect(await feed.snapshot.ids == ["n0", "n1", "n2", "n3"], "both rejected: the server's item is back")
        #expect(await feed.snapshot.rows[1] == Note(id: "n1"))
    }

    @Test func onlyEditsMadeByKindStack() async throws {
        let (_, feed) = try await test.openNotes(ModelServer(.posts("p", 4), pageSize: 10))
        try await feed.enqueue("like", id: "n1", argument: Liked(liked: true)) { $0.liked = true }
        await #expect(throws: FeedError.self, "a closure edit's order against a queued one is nobody's") {
            try await feed.edit(id: "n1") {
                $0.starred = true
            } commit: { _ in
            }
        }
        let (held, release) = AsyncStream.makeStream(of: Void.self)
        let (called, calledContinuation) = AsyncStream.makeStream(of: Void.self)
        let closureEdit = Task {
            try await feed.edit(id: "n2") {
                $0.starred = true
            } commit: { _ in
                calledContinuation.yield()  // the edit is pending: its call runs
                for await _ in held { break }
            }
        }
        for await _ in called { break }
        await #expect(throws: FeedError.self) {
            try await feed.enqueue("like", id: "n2", argument: Liked(liked: true)) { $0.liked = true }
        }
        await #expect(throws: FeedError.self, "the item is in the feed") {
            try await feed.enqueue("post", inserting: Note(id: "n1"), at: 0, argument: Liked(liked: false))
        }
        release.finish()
        _ = try await closureEdit.value
    }

    @Test func aRejectedLaterEditRollsBackToWhatTheConfirmedOneShowed() async throws {
        let (store, feed) = try await test.openNotes(ModelServer(.posts("p", 4), pageSize: 10))
        try await feed.enqueue("like", id: "n1", argument: Liked(liked: true)) { $0.liked = true }
        try await feed.enqueue("star", id: "n1", argument: Liked(liked: true)) { $0.starred = true }
        await store.outbox.register("like", as: Liked.self) { _ in .confirmed }
        await store.outbox.register("star", as: Liked.self) { _ in .rejected(reason: "HTTP 403") }
        await store.outbox.waitUntilEmpty()
        #expect(await feed.snapshot.rows[1] == Note(id: "n1", liked: true))
    }

    @Test func aLaterEditMadeWhileTheFirstIsSentRollsBackToWhatTheFirstShowed() async throws {
        let (store, feed) = try await test.openNotes(ModelServer(.posts("p", 4), pageSize: 10))
        let call = HeldCall()
        await store.outbox.register("like", as: Liked.self) { _ in
            try await call.outcome()
            return .confirmed
        }
        await store.outbox.register("star", as: Liked.self) { _ in .rejected(reason: "HTTP 403") }
        try await feed.enqueue("like", id: "n1", argument: Liked(liked: true)) { $0.liked = true }
        await store.outbox.waitFor { $0.edits.first?.phase == .sending }
        try await feed.enqueue("star", id: "n1", argument: Liked(liked: true)) { $0.starred = true }
        await feed.refresh()
        call.finish(succeeding: true)
        await store.outbox.waitUntilEmpty()
        #expect(await feed.snapshot.rows[1] == Note(id: "n1", liked: true))
    }
}
