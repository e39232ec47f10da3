import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A feed's queued insert of an item other feeds already hold from the server, with edits stacked
/// on it: the stack is the feed's own until the insert settles, so the other feeds keep their copy,
/// and nothing has to put it back when the insert is rejected or dropped; once it is confirmed, the
/// edits join the item the other feeds hold. Also where it meets what else the store does: newer
/// server copies, other feeds' own edits, pages listing the item, search, a second store and a new
/// cache version.
@Suite(.limit(minutes: 2)) struct EditsStackedOnASharedInsertTests {
    let test: FeedTestCase
    let store: FeedStore
    let profileItems = Locked([SharedToot(id: "1", content: "otter")])
    let favItems = Locked([SharedToot(id: "9", content: "heron")])
    let fav: Feed<SharedToot>
    let profile: Feed<SharedToot>

    /// "fav" holds item 9 and "profile" item 1 (otter); fav queues an insert of item 1 ("fave").
    init() async throws {
        test = try FeedTestCase()
        store = try test.store()
        fav = try await store.servedFeed("fav", holding: favItems)
        profile = try await store.servedFeed("profile", holding: profileItems)
        _ = try await fav.enqueue(
            "fave", inserting: SharedToot(id: "1", content: "otter"), at: 0, argument: Revision(revision: 0))
    }

    func contents(_ key: String) -> [String] {
        (try? test.itemsOnDisk(of: SharedToot.self, key: key).map(\.content)) ?? ["<unreadable>"]
    }

    func violations() throws -> [String] {
        try DatabaseQueue(path: test.path).read { try $0.verify() }.map { "\($0)" }
    }

    func revise(_ content: String, _ revision: Int = 1) async throws {
        try await fav.enqueue("revise", id: "1", argument: Revision(revision: revision)) { $0.content = content }
    }

    /// The profile took a newer server copy while the stack was pending (it keeps its own copy).
    /// Once the insert is confirmed, the update goes again on that copy, so its rejection restores
    /// it, never the copy fav inserted.
    @Test func aRejectedUpdateAfterTheInsertIsConfirmedRestoresTheNewerCopyOtherFeedsHold() async throws {
        try await revise("beaver")
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        #expect(contents("profile") == ["otter, edited"])
        await store.outbox.register("fave", as: Revision.self) { _ in .confirmed }
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter, edited"], "a rollback brought back an older copy")
        #expect(try violations().isEmpty)
    }

    /// The same with a removal stacked on the insert: once the insert is confirmed, the removal puts
    /// back the server's newer copy every other feed shows, if it is rejected.
    @Test func aRejectedRemovalAfterTheInsertIsConfirmedPutsBackTheNewerCopy() async throws {
        _ = try await fav.enqueue("unfave", removing: "1", argument: Revision(revision: 1))
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        await store.outbox.register("fave", as: Revision.self) { _ in .confirmed }
        await store.outbox.register("unfave", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter, edited"])
        #expect(contents("fav") == ["otter, edited", "heron"], "one item per id: the copy written last")
        #expect(try violations().isEmpty)
    }

    /// Once the insert is confirmed, the stacked update is a pending update of a shared item like
    /// any other: it shows in every feed holding the item at once, not at the next write.
    @Test func onceTheInsertIsConfirmedThePendingUpdateShowsInEveryFeed() async throws {
        try await revise("beaver")
        let holdUpdate = FetchGate()
        holdUpdate.arm()
        await store.outbox.register("fave", as: Revision.self) { _ in .confirmed }
        await store.outbox.register("revise", as: Revision.self) { _ in
            await holdUpdate.pass()
            return .confirmed
        }
        #expect(await holdUpdate.arrival())
        // The insert is confirmed: only the update is pending, a shared one.
        let pending = try DatabaseQueue(path: test.path).read { store in
            try store.pendingEdits(ofItem: "1", in: #require(try store.feed(key: "fav"))).map(\.kind)
        }
        #expect(pending == [.update])
        #expect(contents("fav") == ["beaver", "heron"])
        #expect(contents("profile") == ["beaver"], "a pending update of a shared item shows in every feed")
        holdUpdate.release()
        await store.outbox.waitUntilEmpty()
        #expect(contents("fav") == ["beaver", "heron"])
        #expect(contents("profile") == ["beaver"], "confirmed: the server has beaver")
    }

    /// Another feed's own pending update of the same id while fav's insert stack is pending: each
    /// feed keeps its own value; its rejection leaves fav alone.
    @Test func anotherFeedsUpdateOfTheSameIDWhileTheStackIsPending() async throws {
        try await revise("beaver")
        try await profile.enqueue("reviseProfile", id: "1", argument: Revision(revision: 7)) { $0.content = "walrus" }
        #expect(contents("profile") == ["walrus"])
        #expect(contents("fav") == ["beaver", "heron"])
        #expect(try violations().isEmpty)
        await store.outbox.register("reviseProfile", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitFor { $0.edits.count == 2 }
        #expect(contents("profile") == ["otter"])
        #expect(contents("fav") == ["beaver", "heron"])
        await store.outbox.register("fave", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.register("revise", as: Revision.self) { _ in .confirmed }
        await store.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter"])
        #expect(contents("fav") == ["heron"])
        #expect(try violations().isEmpty)
    }

    /// A server page of fav itself lists the inserted id while the stack is pending: fav's update
    /// goes again on the server's copy, and the server's copy (not the update) reaches the profile.
    @Test func aPageOfFavListingTheInsertedIDWhileTheStackIsPending() async throws {
        try await revise("beaver")
        favItems.value = [SharedToot(id: "1", content: "otter, server"), SharedToot(id: "9", content: "heron")]
        await fav.refresh()
        #expect(contents("fav") == ["beaver", "heron"])
        #expect(contents("profile") == ["otter, server"])
        #expect(try violations().isEmpty)
        await store.outbox.register("fave", as: Revision.self) { _ in .confirmed }
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(contents("fav") == ["otter, server", "heron"])
        #expect(contents("profile") == ["otter, server"])
        #expect(try violations().isEmpty)
    }

    /// A shared item is one search result, whose document shows "the copy written last". The
    /// stacked update is fav's own: searching the profile, which shows "otter", must find it by
    /// "otter" and not by "beaver".
    @Test func searchInTheOtherFeedFindsWhatItShows() async throws {
        try await revise("beaver")
        #expect(contents("profile") == ["otter"])
        let inProfile = try store.search("otter", as: SharedToot.self, in: ["profile"])
        #expect(inProfile.map(\.id) == ["1"], "the profile shows otter")
        #expect(inProfile.map(\.item.content) == ["otter"])
        let beaverInProfile = try store.search("beaver", as: SharedToot.self, in: ["profile"])
        #expect(beaverInProfile.map(\.item.content).allSatisfy { $0 != "otter" }, "a result showing otter for beaver")
        let differences = try store.queue.read { try $0.searchIndexDifferences() }
        #expect(differences.orphans == 0 && differences.missing == 0 && differences.stale == 0)
    }

    /// A second store on the file relaunched mid-stack: it makes the update; the first store's
    /// profile must still keep its copy, and a rejection of the insert leaves the profile alone.
    @Test func aSecondStoreMakesTheStackedUpdate() async throws {
        let second = try test.store()
        let fav2 = try second.feed(
            "fav", source: ScriptedSource.serving(favItems), policy: FeedPolicy(refreshOnOpen: .never))
        try await fav2.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        #expect(contents("profile") == ["otter"])
        #expect(contents("fav") == ["beaver", "heron"])
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        #expect(contents("fav") == ["beaver", "heron"])
        #expect(contents("profile") == ["otter, edited"])
        await second.outbox.register("fave", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await second.outbox.register("revise", as: Revision.self) { _ in .confirmed }
        await second.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter, edited"])
        #expect(contents("fav") == ["heron"])
        #expect(try violations().isEmpty)
    }

    @Test func theOtherFeedKeepsItsCopyWhileTheInsertIsPending() async throws {
        try await revise("beaver")
        #expect(contents("profile") == ["otter"])
        #expect(contents("fav") == ["beaver", "heron"])
        // A newer server copy in the other feed leaves the stack alone, and shows there.
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        #expect(contents("profile") == ["otter, edited"])
        #expect(contents("fav") == ["beaver", "heron"])
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
    }

    @Test func aRejectedInsertTakesItsUpdateWithoutTouchingTheOtherFeed() async throws {
        try await revise("beaver")
        await store.outbox.register("fave", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.register("revise", as: Revision.self) { _ in .confirmed }
        await store.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter"])
        #expect(contents("fav") == ["heron"])
    }

    @Test func aNewCacheVersionDroppingTheStackLeavesTheOtherFeedsCopy() async throws {
        try await revise("beaver")
        store.close()
        let next = try test.store()
        let fav = try next.feed(
            "fav", source: ScriptedSource.serving(Locked<[SharedToot]>([])),
            policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 2))
        #expect(await fav.snapshot.rows.count == 0)
        #expect(contents("profile") == ["otter"])
    }

    /// Once the server has the item, the update stands on the server's copy as any update does: a
    /// copy the other feed writes becomes its base, the update shows on it everywhere, and its
    /// rejection restores that copy everywhere.
    @Test func afterTheInsertIsConfirmedTheUpdateIsSharedAsAnyUpdate() async throws {
        try await revise("beaver")
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
        #expect(contents("profile") == ["beaver"])
        #expect(contents("fav") == ["beaver", "heron"])
        rejectUpdate.release()
        await store.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter, edited"])
        #expect(contents("fav") == ["otter, edited", "heron"])
    }
}
