import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A confirmed insert joins the shared item while profile's refresh, which read a newer copy from
/// the server, is held mid-flight; the copy lands after the join.
@Suite(.limit(minutes: 2)) struct SharedInsertJoinDuringARefreshTests {
    @Test func aNewerCopyLandingAfterTheJoinBecomesTheUpdatesBase() async throws {
        let test = try FeedTestCase()
        let store = try test.store()
        let favItems = Locked([SharedToot(id: "9", content: "heron")])
        let profileItems = Locked([SharedToot(id: "1", content: "otter")])
        let gate = FetchGate()
        let fav = try await store.servedFeed("fav", holding: favItems)
        let profile = try store.feed(
            "profile",
            source: ScriptedSource<SharedToot> { _ in
                let items = profileItems.value
                await gate.pass()
                return Page(items: items, olderCursor: nil)
            }, policy: FeedPolicy(refreshOnOpen: .never))
        await profile.refresh()
        _ = try await fav.enqueue(
            "fave", inserting: SharedToot(id: "1", content: "otter"), at: 0, argument: Revision(revision: 0))
        try await fav.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        profileItems.value = [SharedToot(id: "1", content: "otter, edited")]
        gate.arm()
        let refresh = Task { await profile.refresh() }
        #expect(await gate.arrival())
        let holdUpdate = await store.outbox.confirmingTheInsertHoldingTheUpdate(
            answering: .rejected(reason: "HTTP 409"))
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content) == ["beaver"])
        gate.release()
        await refresh.value
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content) == ["beaver"])
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "fav").map(\.content) == ["beaver", "heron"])
        holdUpdate.release()
        await store.outbox.waitUntilEmpty()
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content) == ["otter, edited"])
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "fav").map(\.content) == ["otter, edited", "heron"])
        let differences = try store.queue.read { try $0.searchIndexDifferences() }
        #expect(differences.orphans == 0 && differences.missing == 0 && differences.stale == 0)
        let found = try store.search("beaver", as: SharedToot.self)
        #expect(found.isEmpty, "\(found.map(\.item.content))")
    }
}
