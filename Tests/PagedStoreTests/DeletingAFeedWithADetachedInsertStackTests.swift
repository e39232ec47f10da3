import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// `pagedb delete --drop-pending-edits` (``FeedDeletion``, what the command runs) on a feed whose
/// shared item has a detached insert stack and a newer update that was spread.
@Suite(.limit(minutes: 2)) struct DeletingAFeedWithADetachedInsertStackTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    func contents(_ key: String) throws -> [String] {
        try test.itemsOnDisk(of: SharedToot.self, key: key).map(\.content)
    }

    /// fav queues an insert of item 1 and an update (beaver) of it, then gets a new cache version:
    /// the stack is detached (still queued). fav's new list holds item 1 from the server, and fav
    /// queues an update (crane) of it: that one is not on an insert, so it shows in profile too.
    /// Deleting fav dropping its edits puts profile's server copy back, as for any dropped update:
    /// the detached stack is not the item's stack of shown edits.
    @Test func droppingAFeedRestoresItsSpreadUpdateWhenADetachedInsertOfTheItemIsQueued() async throws {
        let store = try test.store()
        let policy = FeedPolicy(refreshOnOpen: .never)
        let favItems = Locked([SharedToot(id: "9", content: "heron")])
        let profileItems = Locked([SharedToot(id: "1", content: "otter")])
        let fav = try store.feed("fav", source: ScriptedSource.serving(favItems), policy: policy)
        let profile = try store.feed("profile", source: ScriptedSource.serving(profileItems), policy: policy)
        await fav.refresh()
        await profile.refresh()
        _ = try await fav.enqueue(
            "fave", inserting: SharedToot(id: "1", content: "otter"), at: 0, argument: Revision(revision: 0))
        try await fav.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        #expect(try contents("profile") == ["otter"])
        favItems.value = [SharedToot(id: "1", content: "otter"), SharedToot(id: "9", content: "heron")]
        let fav2 = try store.feed(
            "fav", source: ScriptedSource.serving(favItems),
            policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 2))
        await fav2.refresh()
        #expect(await store.outbox.status.count == 2, "the detached stack is still queued")
        try await fav2.enqueue("revise", id: "1", argument: Revision(revision: 2)) { $0.content = "crane" }
        let profileNow = try contents("profile")
        #expect(profileNow == ["crane"], "precondition: a plain update shows in every feed")
        store.close()
        let queue = try DatabaseQueue(path: test.path)
        let deleted = try FeedDeletion.delete("fav", in: queue, reason: "deleted") { _ in }
        #expect(deleted?.queued == 3)
        let profileAfter = try contents("profile")
        #expect(profileAfter == ["otter"], "a dropped update still shows")
        #expect(try queue.read { try $0.verify() }.isEmpty)
    }

    /// fav's detached [insert, update] stack was never spread; profile's server copy happens to read
    /// what the update edited. Deleting fav leaves that server copy alone.
    @Test func droppingADetachedInsertStackLeavesTheOtherFeedsServerCopy() async throws {
        let store = try test.store()
        let fav = try await store.servedFeed("fav", holding: Locked([SharedToot(id: "9", content: "heron")]))
        let profileItems = Locked([SharedToot(id: "1", content: "otter")])
        let profile = try await store.servedFeed("profile", holding: profileItems)
        _ = try await fav.enqueue(
            "fave", inserting: SharedToot(id: "1", content: "otter"), at: 0, argument: Revision(revision: 0))
        try await fav.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        _ = try store.feed(
            "fav", source: ScriptedSource.serving(Locked<[SharedToot]>([])),
            policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 2))
        profileItems.value = [SharedToot(id: "1", content: "beaver")]
        await profile.refresh()
        store.close()
        let queue = try DatabaseQueue(path: test.path)
        #expect(try FeedDeletion.delete("fav", in: queue, reason: "deleted") { _ in }?.queued == 2)
        #expect(try contents("profile") == ["beaver"])
    }
}
