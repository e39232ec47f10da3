import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A queued update of a shared item whose rows left under it (detached by a new cache version)
/// is no longer on top of the other feeds' copies: once it goes unsent (its feed deleted) or
/// rejected, the rows that still show it show its base again, and a newer copy another feed fetched
/// meanwhile stays.
@Suite(.limit(minutes: 2)) struct DroppedDetachedSharedUpdatesTests {
    let test: FeedTestCase
    let store: FeedStore
    let profileItems = Locked([SharedToot(id: "1", content: "otter")])
    let profile: Feed<SharedToot>

    /// home queues beaver on item 1, which profile shows too; home is then opened with a new cache
    /// version, which detaches the edit (still queued).
    init() async throws {
        test = try FeedTestCase()
        store = try test.store()
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let home = try await store.servedFeed("home", holding: items)
        profile = try await store.servedFeed("profile", holding: profileItems)
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        _ = try store.feed(
            "home", source: ScriptedSource.serving(items), policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 2))
    }

    func profileShows() throws -> [String] {
        try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content)
    }

    @Test func deletingItsFeedRestoresTheBaseWhereTheEditStillShows() async throws {
        #expect(try profileShows() == ["beaver"])
        _ = try FeedDeletion.delete("home", in: store.queue, reason: "test") { _ in }
        #expect(try profileShows() == ["otter"])
    }

    @Test func deletingItsFeedKeepsANewerCopyAnotherFeedFetched() async throws {
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        #expect(try profileShows() == ["otter, edited"])
        _ = try FeedDeletion.delete("home", in: store.queue, reason: "test") { _ in }
        #expect(try profileShows() == ["otter, edited"])
    }

    @Test func itsRejectionKeepsANewerCopyAnotherFeedFetched() async throws {
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(try profileShows() == ["otter, edited"])
    }
}
