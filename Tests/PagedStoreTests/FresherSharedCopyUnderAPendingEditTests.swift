import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A fresher server copy of a shared item, fetched through another feed, while an edit of the item
/// is pending: every list shows the edit applied again on the fresh copy (its change, while the
/// feed that made it is open; what it changed, after a relaunch), and a rollback restores the copy.
@Suite(.limit()) struct FresherSharedCopyUnderAPendingEditTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func aPendingEditGoesAgainOnAFresherCopyAnotherFeedFetched() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let (_, home, profile) = try await test.openSharedNotes(server)
        let (held, answer) = AsyncStream.makeStream(of: Void.self)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let editing = Task {
            try await home.edit(id: "n1") {
                $0.revision += 100
            } commit: { _ in
                start.yield()
                for await _ in held { return }
            }
        }
        for await _ in started { break }
        server.items[1].revision = 5
        await profile.refresh()
        let fresh = SharedNote(id: "n1", revision: 105)
        #expect(await profile.snapshot.rows[1] == fresh, "the edit's change on the fresh copy")
        #expect(await home.firstSnapshot { $0.rows[1] == fresh } != nil, "the list that made it follows")
        answer.finish()
        #expect(try await editing.value)
        #expect(try test.violations().isEmpty)
    }

    @Test func aQueuedEditFromBeforeARelaunchGoesAgainOnAFresherCopyByWhatItChanged() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let (store, home, _) = try await test.openSharedNotes(server)
        try await home.enqueue("like", id: "n2", argument: Liked(liked: true)) { $0.liked = true }
        store.close()
        let (relaunched, _, profile) = try await test.openSharedNotes(server)
        server.items[2].revision = 7
        await profile.refresh()
        let fresh = SharedNote(id: "n2", liked: true, revision: 7)
        #expect(await profile.snapshot.rows[2] == fresh)
        let reopenedHome = try relaunched.feed(
            "home", source: server.sharedNoteSource, policy: FeedPolicy(refreshOnOpen: .never))
        #expect(await reopenedHome.snapshot.rows[2] == fresh)

        await relaunched.outbox.register("like", as: Liked.self) { _ in .rejected(reason: "HTTP 403") }
        await relaunched.outbox.waitUntilEmpty()
        let restored = SharedNote(id: "n2", revision: 7)
        #expect(await profile.firstSnapshot { $0.rows[2] == restored } != nil, "the fresh copy, not the old one")
        #expect(await reopenedHome.firstSnapshot { $0.rows[2] == restored } != nil)
    }
}
