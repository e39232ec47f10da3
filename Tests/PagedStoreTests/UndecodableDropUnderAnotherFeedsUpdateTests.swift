import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A closure edit of fav (a model that cannot read some payloads) dropped because its row no longer
/// decodes, while profile has its own queued update made on the value fav's edit showed (its base
/// is fav's value): every feed ends on the server's copy.
@Suite(.limit(minutes: 2)) struct UndecodableDropUnderAnotherFeedsUpdateTests {
    typealias PickyToot = UndecodableRowsOfSharedItemsTests.PickyToot

    @Test func anUndecodableDropUnderAnotherFeedsQueuedUpdate() async throws {
        let test = try FeedTestCase()
        let store = try test.store()
        let fav = try await store.servedFeed("fav", holding: Locked([PickyToot(id: "1", content: "otter")]))
        let profile = try await store.servedFeed("profile", holding: Locked([SharedToot(id: "1", content: "otter")]))
        _ = try await store.servedFeed("lists", holding: Locked([SharedToot(id: "1", content: "otter")]))
        let edit = await HeldRefusedEdit(of: "1", in: fav) { $0.content = "beaver" }
        try await profile.enqueue("reviseProfile", id: "1", argument: Revision(revision: 2)) { $0.content = "walrus" }
        _ = try DatabaseQueue(path: test.path).write { store in
            guard let feed = try store.feed(key: "fav") else { return }
            try store.connection.run(
                "UPDATE item SET payload = json_set(payload, '$.content', 'unreadable beaver') WHERE feed_id = ?1",
                feed.id)
        }
        let relaunched = try test.store().feed(
            "fav", source: ScriptedSource.serving(Locked<[PickyToot]>([])), policy: FeedPolicy(refreshOnOpen: .never))
        #expect(await relaunched.snapshot.rows.count == 0)
        let base = try DatabaseQueue(path: test.path).read { store in
            try store.pendingEdits(ofItem: "1", in: #require(try store.feed(key: "profile"))).first?.base
                .map { try ItemCodec<SharedToot>.json.decode($0).content }
        }
        #expect(base == "otter", "profile's update stands on \(String(describing: base))")
        await edit.refuse()
        await store.outbox.register("reviseProfile", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content) == ["otter"])
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "lists").map(\.content) == ["otter"])
    }
}
