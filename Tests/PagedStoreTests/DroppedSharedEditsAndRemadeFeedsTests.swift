import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Feeds made again after a delete, dropped edits of shared items, and relevance windows after
/// writes.
@Suite(.limit(minutes: 2)) struct DroppedSharedEditsAndRemadeFeedsTests {
    let test: FeedTestCase
    let store: FeedStore

    init() throws {
        test = try FeedTestCase()
        store = try test.store()
    }

    /// home, open with cache version 2, is deleted (pagedb delete's write path) while open; a
    /// refresh makes it again with the v2 model's rows. The app then ships cache version 3: the
    /// rows written by the v2 model must be cleared, as for any feed recorded at v2.
    @Test func aFeedMadeAgainAfterADeleteKeepsItsCacheVersion() async throws {
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let home = try store.feed(
            "home", source: ScriptedSource.serving(items), policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 2))
        await home.refresh()
        let deleted = try FeedDeletion.delete("home", in: store.queue, reason: "test") { _ in }
        #expect(deleted != nil)
        items.value = [SharedToot(id: "2", content: "v2 row")]
        await home.refresh()
        #expect(try test.idsOnDisk(key: "home") == ["2"])
        let recorded = try test.recordOnDisk(key: "home")?.policy
        store.close()
        let next = try test.store()
        let v3 = try next.feed(
            "home", source: ScriptedSource.serving(Locked<[SharedToot]>([])),
            policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 3))
        let shown = await v3.snapshot.rows.compactMap { $0?.content }
        #expect(shown == [], "rows of the v2 model shown to v3 (recorded policy: \(recorded ?? "nil"))")
    }

    /// A closure edit of a shared item in home (its call pending) shows in profile; a second store
    /// opens home with a new cache version (the edit dropped, profile restored). A third feed, open,
    /// holding its own queued edit of the item made after home's, must keep showing it on top.
    @Test func aCacheVersionClearUnderANewerQueuedEditOfAnotherFeed() async throws {
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let policy = FeedPolicy(refreshOnOpen: .never)
        let home = try store.feed("home", source: ScriptedSource.serving(items), policy: policy)
        let profile = try store.feed("profile", source: ScriptedSource.serving(items), policy: policy)
        let third = try store.feed("third", source: ScriptedSource.serving(items), policy: policy)
        await home.refresh()
        await profile.refresh()
        await third.refresh()
        try await third.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "walrus" }
        let edit = await HeldRefusedEdit(of: "1", in: home) { $0.content = "beaver" }
        let during = try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content)
        let other = try test.store()
        _ = try other.feed(
            "home", source: ScriptedSource.serving(items), policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 5))
        #expect(
            try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content) == ["walrus"], "during \(during)")
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "third").map(\.content) == ["walrus"])
        await edit.refuse()
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content) == ["walrus"])
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "third").map(\.content) == ["walrus"])
        #expect(try store.search("beaver", as: SharedToot.self).isEmpty)
        _ = (profile, third)
    }

    /// Relevance order, page size 2, five matches. Another store rewrites the two loaded ones so
    /// they rank last; loadMore takes the best two not loaded; loadMore again (no write between)
    /// reads after the last by rank: every match must be loaded once, and hasMore end false.
    @Test func relevanceWindowsAfterRanksMovedLoadEachMatchOnce() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let matching = (1...5).map { Toot(id: "\($0)", content: String(repeating: "otter ", count: $0) + "end") }
        let items = Locked(matching)
        await (try store.feed("home", source: ScriptedSource.serving(items), policy: policy)).refresh()
        let list = try store.searchList("otter", as: Toot.self, pageSize: 2)
        let first = await list.snapshot.results.map(\.id)
        // The loaded ones now rank last: one "otter" among many words.
        let other = try test.store()
        items.value = matching.map { toot in
            first.contains(toot.id)
                ? Toot(id: toot.id, content: "otter " + String(repeating: "padding ", count: 80)) : toot
        }
        await (try other.feed("home", source: ScriptedSource.serving(items), policy: policy)).refresh()
        var rounds = 0
        while await list.snapshot.hasMore, rounds < 10 {
            await list.loadMore()
            rounds += 1
        }
        let loaded = await list.snapshot.results.map(\.id)
        #expect(loaded.count == 5 && Set(loaded).count == 5, "loaded \(loaded) from \(first)")
        #expect(await list.snapshot.hasMore == false)
    }

    /// An app's closure edit of shared item 1 in home is under way when home is deleted with its
    /// pending edits (pagedb delete's write path); then the call fails. Profile shows otter, home is
    /// not made again with a row put back by the rollback.
    @Test func aDeleteWhileAClosureEditIsUnderWayThenTheCallFails() async throws {
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let (home, profile) = try await store.homeAndProfile(holding: items)
        let edit = await HeldRefusedEdit(of: "1", in: home) { $0.content = "beaver" }
        let deleted = try FeedDeletion.delete("home", in: try DatabaseQueue(path: test.path), reason: "test") { _ in }
        #expect(deleted?.saving == 1)
        let between = try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content)
        await edit.refuse()
        let after = try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.content)
        #expect(between == ["otter"] && after == ["otter"], "between \(between), after \(after)")
        let homeRows = try test.idsOnDisk(key: "home")
        #expect(homeRows == [], "home rows \(homeRows)")
        let found = try store.search("beaver", as: SharedToot.self).map(\.listID)
        #expect(found == [])
        let d = try store.queue.read { try $0.searchIndexDifferences() }
        #expect("\(d.orphans)/\(d.missing)/\(d.stale)" == "0/0/0")
        _ = profile
    }

    /// The cache-version clear by a second store restores profile: profile's open, observed list
    /// in the first store follows (a reload to otter), and an observed search for beaver empties.
    @Test func aCacheVersionClearReachesTheOtherFeedsOpenList() async throws {
        let items = Locked([SharedToot(id: "0", content: "zero"), SharedToot(id: "1", content: "otter")])
        let (home, profile) = try await store.homeAndProfile(holding: items)
        let edit = await HeldRefusedEdit(of: "1", in: home) { $0.content = "beaver" }
        #expect(await profile.firstSnapshot { $0.rows.compactMap { $0?.content } == ["zero", "beaver"] } != nil)
        let recorder = StreamRecorder(await profile.snapshots)
        let list = try store.searchList("beaver", as: SharedToot.self)
        let searchRecorder = StreamRecorder(await list.snapshots)
        let other = try test.store()
        _ = try other.feed(
            "home", source: ScriptedSource.serving(items), policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 5))
        let seen = await recorder.snapshots { $0.rows.compactMap { $0?.content } == ["zero", "otter"] }
        #expect(seen.last?.rows.compactMap { $0?.content } == ["zero", "otter"])
        let emptied = await searchRecorder.snapshots { $0.results.isEmpty }
        #expect(emptied.last?.results.isEmpty == true)
        await edit.refuse()
        _ = (home, other)
    }
}
