import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A server item edited then removed in one feed (no row shows its update), a newer copy in
/// another: the update goes again on the copy, so its rejection restores the newer copy.
@Suite(.limit(minutes: 2)) struct PendingUpdatesOfARemovedSharedItemTests {
    @Test func updateThenRemovalOfAServerItemRejectedAfterANewerCopy() async throws {
        let test = try FeedTestCase()
        let store = try test.store()
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let (home, profile) = try await store.homeAndProfile(holding: items)
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        _ = try await home.enqueue("unfave", removing: "1", argument: Revision(revision: 2))
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content) == ["beaver"])
        items.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.register("unfave", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(
            try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content) == ["otter, edited"],
            "a rollback brought back an older copy")
    }
}
