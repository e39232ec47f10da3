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
        let holdUpdate = await store.outbox.confirmingTheInsertHoldingTheUpdate(answering: .confirmed)
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
        let rejectUpdate = await store.outbox.confirmingTheInsertHoldingTheUpdate(
            answering: .rejected(reason: "HTTP 409"))
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        #expect(contents("profile") == ["beaver"])
        #expect(contents("fav") == ["beaver", "heron"])
        rejectUpdate.release()
        await store.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter, edited"])
        #expect(contents("fav") == ["otter, edited", "heron"])
    }

    func pending(_ key: String) throws -> [(PendingEditRecord.Kind, String?)] {
        try DatabaseQueue(path: test.path).read { store in
            try store.pendingEdits(ofItem: "1", in: #require(try store.feed(key: key))).map { edit in
                (edit.kind, try edit.base.map { try ItemCodec<SharedToot>.json.decode($0).content })
            }
        }
    }

    /// Update then removal stacked on the insert. Once the insert is confirmed the stack is
    /// [update, remove], which stands on the server's copy: its update is a pending update of a shared
    /// item (pendingSharedEdits counts it). The docs: "the edits still pending go again on the server's
    /// copy the other lists hold ... and show in every list". The profile must show "beaver" from the
    /// confirmation on, not only after some unrelated later write.
    @Test func updateThenRemovalOnAConfirmedInsertShowsTheUpdateInTheOtherFeeds() async throws {
        try await fav.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        _ = try await fav.enqueue("unfave", removing: "1", argument: Revision(revision: 2))
        let holdUpdate = await store.outbox.confirmingTheInsertHoldingTheUpdate(answering: .confirmed)
        #expect(try pending("fav").map(\.0) == [.update, .remove])
        let afterJoin = contents("profile")
        // A server page bringing the same copy again (nothing new): what the profile shows must not
        // change because of it.
        await profile.refresh()
        let afterRefresh = contents("profile")
        #expect(
            afterJoin == afterRefresh,
            "the profile showed \(afterJoin) after the join, \(afterRefresh) after a refresh bringing nothing new")
        #expect(afterJoin == ["beaver"], "a pending update of a shared item shows in every feed")
        holdUpdate.release()
        await store.outbox.register("unfave", as: Revision.self) { _ in .confirmed }
        await store.outbox.waitUntilEmpty()
        #expect(try violations().isEmpty)
    }

    /// Same stack; a newer server copy arrives in the profile after the join, then the update is
    /// rejected: its rollback must show the newest server copy everywhere ("otter, edited"), never
    /// the copy the join rebased it on.
    @Test func updateThenRemovalOnAConfirmedInsertRejectedAfterANewerCopy() async throws {
        try await fav.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        _ = try await fav.enqueue("unfave", removing: "1", argument: Revision(revision: 2))
        let holdUpdate = await store.outbox.confirmingTheInsertHoldingTheUpdate(
            answering: .rejected(reason: "HTTP 409"))
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        let bases = try pending("fav")
        #expect(
            bases.first?.1 == "otter, edited",
            "the pending update's base (what its rollback restores) is \(String(describing: bases.first?.1))")
        holdUpdate.release()
        await store.outbox.register("unfave", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter, edited"], "a rollback brought back an older copy")
        #expect(try violations().isEmpty)
    }

    /// The join in one store, followed by a list on "profile" and on "fav" open in a second store on
    /// the file: each must follow with an exact change (no full reload, no wrong row).
    @Test func anObservedListInASecondStoreFollowsTheJoinExactly() async throws {
        try await fav.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        let second = try test.store()
        let policy = FeedPolicy(refreshOnOpen: .never)
        let profile2 = try second.feed("profile", source: ScriptedSource.serving(profileItems), policy: policy)
        let fav2 = try second.feed("fav", source: ScriptedSource.serving(favItems), policy: policy)
        let watchedProfile = await ObservedList(profile2)
        let watchedFav = await ObservedList(fav2)
        #expect(await watchedProfile.firstSnapshot { $0.texts == ["otter, edited"] } != nil)
        #expect(await watchedFav.firstSnapshot { $0.texts == ["beaver", "heron"] } != nil)
        let holdUpdate = await store.outbox.confirmingTheInsertHoldingTheUpdate(
            answering: .rejected(reason: "HTTP 409"))
        #expect(await watchedProfile.firstSnapshot { $0.texts == ["beaver"] } != nil)
        holdUpdate.release()
        await store.outbox.waitUntilEmpty()
        #expect(await watchedProfile.firstSnapshot { $0.texts == ["otter, edited"] } != nil)
        #expect(await watchedFav.firstSnapshot { $0.texts == ["otter, edited", "heron"] } != nil)
        #expect(watchedProfile.seen.fullReloads == 0, "profile: \(watchedProfile.seen)")
        #expect(watchedFav.seen.fullReloads == 0, "fav: \(watchedFav.seen)")
        #expect(watchedProfile.rejectedChanges.isEmpty, "\(watchedProfile.rejectedChanges)")
        #expect(watchedFav.rejectedChanges.isEmpty, "\(watchedFav.rejectedChanges)")
        let differences = try store.queue.read { try $0.searchIndexDifferences() }
        #expect(differences.orphans == 0 && differences.missing == 0 && differences.stale == 0)
        #expect(try violations().isEmpty)
    }

    /// The insert is confirmed while fav is closed (the outbox of a store that never opened fav: the
    /// OutboxWriter path, no carry): the update joins, shows everywhere, and its rejection restores
    /// the newer copy the profile held.
    @Test func theJoinThroughTheOutboxAloneWhileFavIsClosed() async throws {
        try await fav.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        await profile.refresh()
        store.close()
        let second = try test.store()
        let profile2 = try second.feed(
            "profile", source: ScriptedSource.serving(profileItems), policy: FeedPolicy(refreshOnOpen: .never))
        let watched = await ObservedList(profile2)
        let holdUpdate = await second.outbox.confirmingTheInsertHoldingTheUpdate(
            answering: .rejected(reason: "HTTP 409"))
        #expect(contents("profile") == ["beaver"])
        #expect(contents("fav") == ["beaver", "heron"])
        #expect(try pending("fav").map(\.1) == ["otter, edited"])
        holdUpdate.release()
        await second.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter, edited"])
        #expect(contents("fav") == ["otter, edited", "heron"])
        #expect(await watched.firstSnapshot { $0.texts == ["otter, edited"] } != nil)
        #expect(watched.seen.fullReloads == 0, "\(watched.seen)")
        #expect(watched.rejectedChanges.isEmpty, "\(watched.rejectedChanges)")
        let beaver = try second.search("beaver", as: SharedToot.self)
        #expect(beaver.isEmpty, "search finds \(beaver.map(\.item.content)) for beaver")
        #expect(try violations().isEmpty)
    }

    /// Two feeds hold the item from the server; one ("home") has its own pending update. When fav's
    /// insert is confirmed, serverCopy takes home's base; then home's update is rejected while fav's is
    /// still pending, and fav's update is rejected after: every feed must end on the server's copy.
    @Test func anotherFeedsPendingUpdateAtTheJoinThenBothRejected() async throws {
        let homeItems = Locked([SharedToot(id: "1", content: "otter")])
        let home = try await store.servedFeed("home", holding: homeItems)
        try await fav.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        try await home.enqueue("reviseHome", id: "1", argument: Revision(revision: 5)) { $0.content = "walrus" }
        #expect(contents("profile") == ["walrus"])
        let holdFav = await store.outbox.confirmingTheInsertHoldingTheUpdate(answering: .rejected(reason: "HTTP 409"))
        let homeBase = try pending("home").first?.1
        #expect(
            homeBase == "otter",
            "home's pending update now stands on \(String(describing: homeBase)), fav's pending value")
        await store.outbox.register("reviseHome", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.waitFor { $0.edits.count == 1 }
        holdFav.release()
        await store.outbox.waitUntilEmpty()
        #expect(contents("profile") == ["otter"])
        #expect(contents("home") == ["otter"])
        #expect(contents("fav") == ["otter", "heron"])
        #expect(try violations().isEmpty)
    }
}

extension FeedSnapshot where Item == SharedToot {
    /// What the rows show, top to bottom.
    var texts: [String] { rows.indices.map { rows[$0]?.content ?? "<not loaded>" } }
}
