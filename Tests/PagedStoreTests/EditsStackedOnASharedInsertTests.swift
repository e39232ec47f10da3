import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A feed's queued insert of an item other feeds already hold from the server, with an update
/// stacked on it: the stack is the feed's own until the insert settles, so the other feeds keep
/// their copy, and nothing has to put it back when the insert is rejected or dropped.
@Suite(.limit(minutes: 2)) struct EditsStackedOnASharedInsertTests {
    let test: FeedTestCase
    let store: FeedStore
    let profileItems = Locked([SharedToot(id: "1", content: "otter")])
    let fav: Feed<SharedToot>
    let profile: Feed<SharedToot>

    /// "fav" holds item 9 and "profile" item 1 (otter); fav queues an insert of item 1 and an update
    /// of it (beaver).
    init() async throws {
        test = try FeedTestCase()
        store = try test.store()
        fav = try await store.servedFeed("fav", holding: Locked([SharedToot(id: "9", content: "heron")]))
        profile = try await store.servedFeed("profile", holding: profileItems)
        _ = try await fav.enqueue(
            "fave", inserting: SharedToot(id: "1", content: "otter"), at: 0, argument: Revision(revision: 0))
        try await fav.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
    }

    func contents(_ key: String) throws -> [String] {
        try test.itemsOnDisk(of: SharedToot.self, key: key).map(\.content)
    }

    @Test func theOtherFeedKeepsItsCopyWhileTheInsertIsPending() async throws {
        #expect(try contents("profile") == ["otter"])
        #expect(try contents("fav") == ["beaver", "heron"])
        // A newer server copy in the other feed leaves the stack alone, and shows there.
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        #expect(try contents("profile") == ["otter, edited"])
        #expect(try contents("fav") == ["beaver", "heron"])
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    @Test func aRejectedInsertTakesItsUpdateWithoutTouchingTheOtherFeed() async throws {
        await store.outbox.register("fave", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.register("revise", as: Revision.self) { _ in .confirmed }
        await store.outbox.waitUntilEmpty()
        #expect(try contents("profile") == ["otter"])
        #expect(try contents("fav") == ["heron"])
    }

    @Test func aNewCacheVersionDroppingTheStackLeavesTheOtherFeedsCopy() async throws {
        store.close()
        let next = try test.store()
        let fav = try next.feed(
            "fav", source: ScriptedSource.serving(Locked<[SharedToot]>([])),
            policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 2))
        #expect(await fav.snapshot.rows.count == 0)
        #expect(try contents("profile") == ["otter"])
    }

    /// Once the server has the item, the update stands on the server's copy as any update does: a
    /// copy the other feed writes becomes its base, the update shows on it everywhere, and its
    /// rejection restores that copy everywhere.
    @Test func afterTheInsertIsConfirmedTheUpdateIsSharedAsAnyUpdate() async throws {
        let rejectUpdate = FetchGate()
        rejectUpdate.arm()
        await store.outbox.register("fave", as: Revision.self) { _ in .confirmed }
        await store.outbox.register("revise", as: Revision.self) { _ in
            await rejectUpdate.pass()
            return .rejected(reason: "HTTP 409")
        }
        #expect(await rejectUpdate.arrival())
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        #expect(try contents("profile") == ["beaver"])
        #expect(try contents("fav") == ["beaver", "heron"])
        rejectUpdate.release()
        await store.outbox.waitUntilEmpty()
        #expect(try contents("profile") == ["otter, edited"])
        #expect(try contents("fav") == ["otter, edited", "heron"])
    }
}
