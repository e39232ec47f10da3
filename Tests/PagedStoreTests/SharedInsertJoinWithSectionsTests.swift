import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A shared item whose section its payload names (a shelf): the server's copy other feeds hold is
/// on another shelf than the one fav inserted it on.
struct ShelvedToot: FeedItem, Codable, Equatable {
    static let sharedItemType: String? = "shelved"
    static let searchableFields = ["content"]
    let id: String
    var content: String
    var shelf: String
    var sectionKey: String? { shelf }
}

/// A confirmed insert joins the shared item on the section of the server's copy: the row moves
/// there as one exact change, in every store.
@Suite(.limit(minutes: 2)) struct SharedInsertJoinWithSectionsTests {
    @Test func theJoinMovingTheRowToTheCopysSectionIsAnExactChange() async throws {
        let test = try FeedTestCase()
        let store = try test.store()
        let favItems = Locked([ShelvedToot(id: "9", content: "heron", shelf: "A")])
        let profileItems = Locked([ShelvedToot(id: "1", content: "otter", shelf: "B")])
        let fav = try await store.servedFeed("fav", holding: favItems)
        _ = try await store.servedFeed("profile", holding: profileItems)
        _ = try await fav.enqueue(
            "fave", inserting: ShelvedToot(id: "1", content: "otter", shelf: "A"), at: 0,
            argument: Revision(revision: 0))
        try await fav.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        let second = try test.store()
        let fav2 = try second.feed(
            "fav", source: ScriptedSource.serving(favItems), policy: FeedPolicy(refreshOnOpen: .never))
        let here = await ObservedList(fav)
        let there = await ObservedList(fav2)
        #expect(await there.firstSnapshot { $0.sectionedIDs == [["1", "9"]] } != nil)
        let hold = await store.outbox.confirmingTheInsertHoldingTheUpdate(answering: .rejected(reason: "HTTP 409"))
        let rows = try test.itemsOnDisk(of: ShelvedToot.self, key: "fav")
        #expect(rows.map(\.shelf) == ["B", "A"], "\(rows)")
        #expect(await here.firstSnapshot { $0.sectionedIDs == [["1"], ["9"]] } != nil)
        #expect(await there.firstSnapshot { $0.sectionedIDs == [["1"], ["9"]] } != nil)
        hold.release()
        await store.outbox.waitUntilEmpty()
        #expect(await there.firstSnapshot { $0.rows[0]?.content == "otter" } != nil)
        #expect(here.rejectedChanges.isEmpty, "same store: \(here.rejectedChanges)")
        #expect(there.rejectedChanges.isEmpty, "second store: \(there.rejectedChanges)")
        #expect(here.seen.fullReloads == 0, "same store: \(here.seen)")
        #expect(there.seen.fullReloads == 0, "second store: \(there.seen)")
        #expect(try DatabaseQueue(path: test.path).read { try $0.verify() }.isEmpty)
        let differences = try store.queue.read { try $0.searchIndexDifferences() }
        #expect(differences.orphans == 0 && differences.missing == 0 && differences.stale == 0)
    }
}
