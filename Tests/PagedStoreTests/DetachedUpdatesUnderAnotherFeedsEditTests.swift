import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A detached shared update of "home" goes unsent or rejected while another feed ("profile") has
/// its own pending update made on the value home's update showed (its base is home's value): that
/// update goes again on home's base, as it does when an update still on its row is rejected.
@Suite(.limit(minutes: 2)) struct DetachedUpdatesUnderAnotherFeedsEditTests {
    let test: FeedTestCase
    let store: FeedStore
    let profile: Feed<SharedToot>
    let lists: Feed<SharedToot>

    /// home, profile and lists hold 1 (otter). home queues beaver (shown everywhere), profile then
    /// queues walrus on it, and home is opened with a new cache version, which detaches its edit.
    init() async throws {
        test = try FeedTestCase()
        store = try test.store()
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let home = try await store.servedFeed("home", holding: items)
        profile = try await store.servedFeed("profile", holding: Locked([SharedToot(id: "1", content: "otter")]))
        lists = try await store.servedFeed("lists", holding: Locked([SharedToot(id: "1", content: "otter")]))
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        try await profile.enqueue("reviseProfile", id: "1", argument: Revision(revision: 2)) { $0.content = "walrus" }
        _ = try store.feed(
            "home", source: ScriptedSource.serving(items), policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 2))
    }

    func contents(_ key: String) -> [String] {
        (try? test.itemsOnDisk(of: SharedToot.self, key: key).map(\.content)) ?? ["<unreadable>"]
    }

    func profileBase() throws -> String? {
        try DatabaseQueue(path: test.path).read { store in
            try store.pendingEdits(ofItem: "1", in: #require(try store.feed(key: "profile"))).first?.base
                .map { try ItemCodec<SharedToot>.json.decode($0).content }
        }
    }

    @Test func theRejectedDetachedUpdateLeavesNoFeedsBaseOnItsValue() async throws {
        #expect(contents("lists") == ["walrus"])
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitFor { $0.count == 1 }
        #expect(try profileBase() == "otter", "profile's update still stands on home's rejected value")
        await store.outbox.register("reviseProfile", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter"], "a rollback shows a rejected update's value")
        #expect(contents("lists") == ["otter"], "a rollback shows a rejected update's value")
    }

    @Test func deletingTheDetachedUpdatesFeedLeavesNoFeedsBaseOnItsValue() async throws {
        _ = try FeedDeletion.delete("home", in: store.queue, reason: "test") { _ in }
        #expect(try profileBase() == "otter", "profile's update still stands on home's dropped value")
        await store.outbox.register("reviseProfile", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter"], "a rollback shows an update that was never sent")
        #expect(contents("lists") == ["otter"], "a rollback shows an update that was never sent")
    }

    /// The same with home's edit still on its row (not detached): its rejection spreads
    /// the server's copy, which profile's update goes again on.
    @Test func anUpdateStillOnItsRowRejectedLeavesNoFeedsBaseOnItsValue() async throws {
        let fresh = try FeedTestCase()
        let store = try fresh.store()
        let home = try await store.servedFeed("home", holding: Locked([SharedToot(id: "1", content: "otter")]))
        let profile = try await store.servedFeed("profile", holding: Locked([SharedToot(id: "1", content: "otter")]))
        _ = try await store.servedFeed("lists", holding: Locked([SharedToot(id: "1", content: "otter")]))
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        try await profile.enqueue("reviseProfile", id: "1", argument: Revision(revision: 2)) { $0.content = "walrus" }
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitFor { $0.count == 1 }
        await store.outbox.register("reviseProfile", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(try fresh.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content) == ["otter"])
        #expect(try fresh.itemsOnDisk(of: SharedToot.self, key: "lists").map(\.content) == ["otter"])
    }
}
