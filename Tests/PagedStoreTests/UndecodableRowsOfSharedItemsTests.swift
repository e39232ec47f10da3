import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A closure edit of a shared item dropped because the feed that made it can no longer read it
/// (its row, or the edit's own payload, no longer decodes) leaves the other feeds holding the item
/// showing the server's copy again, as its rejection would.
@Suite(.limit(minutes: 2)) struct UndecodableRowsOfSharedItemsTests {
    /// The item of "fav": shared with `SharedToot` under one name, but it cannot read a post whose
    /// content says "unreadable" (a model the app changed).
    struct PickyToot: FeedItem, Codable, Equatable {
        static let searchableFields = ["content"]
        static let sharedItemType: String? = "toot"
        let id: String
        var content: String

        init(id: String, content: String) {
            self.id = id
            self.content = content
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            content = try container.decode(String.self, forKey: .content)
            if content.contains("unreadable") {
                throw DecodingError.dataCorruptedError(forKey: .content, in: container, debugDescription: "unreadable")
            }
        }
    }

    let test: FeedTestCase
    let store: FeedStore
    let fav: Feed<PickyToot>
    let profile: Feed<SharedToot>

    /// fav and profile both hold item 1 (otter) from the server.
    init() async throws {
        test = try FeedTestCase()
        store = try test.store()
        fav = try await store.servedFeed("fav", holding: Locked([PickyToot(id: "1", content: "otter")]))
        profile = try await store.servedFeed("profile", holding: Locked([SharedToot(id: "1", content: "otter")]))
    }

    func profileShows() throws -> [String] {
        try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content)
    }

    /// Writes `sql` into the file as a writer by hand does, with fav's feed id as `?1`.
    func editByHand(_ sql: String) throws {
        _ = try DatabaseQueue(path: test.path).write { store in
            guard let feed = try store.feed(key: "fav") else { return }
            try store.connection.run(sql, feed.id)
        }
    }

    @Test func aRowThatNoLongerDecodesTakesItsClosureEditOutOfTheOtherFeeds() async throws {
        let edit = await HeldRefusedEdit(of: "1", in: fav) { $0.content = "beaver" }
        #expect(try profileShows() == ["beaver"])
        try editByHand(
            "UPDATE item SET payload = json_set(payload, '$.content', 'unreadable beaver') WHERE feed_id = ?1")
        // The app's next launch opens fav while the call is still pending here.
        let relaunched = try test.store().feed(
            "fav", source: ScriptedSource.serving(Locked<[PickyToot]>([])), policy: FeedPolicy(refreshOnOpen: .never))
        #expect(await relaunched.snapshot.rows.count == 0)
        #expect(try profileShows() == ["otter"])
        await edit.refuse()
        #expect(try profileShows() == ["otter"])
    }

    @Test func anEditWhosePayloadNoLongerDecodesLeavesTheOtherFeedsOnTheServersCopy() async throws {
        let edit = await HeldRefusedEdit(of: "1", in: fav) { $0.content = "beaver" }
        try editByHand(
            "UPDATE pending_edit SET edited = json_set(edited, '$.content', 'unreadable beaver') WHERE feed_id = ?1")
        await fav.refresh()
        #expect(try profileShows() == ["otter"])
        await edit.refuse()
        #expect(try profileShows() == ["otter"])
    }
}
