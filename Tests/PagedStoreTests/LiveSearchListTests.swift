import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A search of the cache as a live list: every write, by this store or another, reaches the open
/// results as an exact change, and windows load by keyset.
@Suite(.limit()) struct LiveSearchListTests {
    let test: FeedTestCase
    let store: FeedStore
    /// What the server lists now.
    let server = Locked<[Toot]>([])

    init() throws {
        test = try FeedTestCase()
        store = try test.store()
    }

    func feed(_ key: String = "home", on store: FeedStore? = nil) throws -> Feed<Toot> {
        try (store ?? self.store).feed(
            key, source: ScriptedSource<Toot> { [server] _ in Page(items: server.value, olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
    }

    /// The snapshots once the last shows `ids`, each checked as a batch update reads its change.
    func snapshots(
        _ recorder: StreamRecorder<SearchSnapshot<Toot>>, showing ids: [String]
    ) async -> [SearchSnapshot<Toot>] {
        let snapshots = await recorder.snapshots { $0.results.map(\.id) == ids }
        SearchSnapshotChecks.check(snapshots, "live search")
        #expect(snapshots.last?.results.map(\.id) == ids)
        return snapshots
    }

    @Test func aRefreshThatBringsAMatchingPostInsertsItIntoTheOpenResults() async throws {
        server.value = ([Toot(id: "1", content: "swift on the server"), Toot(id: "2", content: "rust")])
        let home = try feed()
        await home.refresh()
        let list = try store.searchList("swift", as: Toot.self, order: .recency)
        let recorder = StreamRecorder(await list.snapshots)
        server.value = ([Toot(id: "3", content: "Swift 6 is out")] + server.value)
        await home.refresh()
        let snapshots = await snapshots(recorder, showing: ["3", "1"])
        #expect(snapshots.last?.change.insertedRows == [[0, 0]])
        #expect(snapshots.last?.change.deletedRows == [])
    }

    @Test func anEditThatStopsMatchingDeletesItAndOneThatStillMatchesReloadsIt() async throws {
        server.value = ([Toot(id: "1", content: "swift one"), Toot(id: "2", content: "swift two")])
        let home = try feed()
        await home.refresh()
        let list = try store.searchList("swift", as: Toot.self, order: .recency)
        let recorder = StreamRecorder(await list.snapshots)
        let before = await list.snapshot.results.map(\.id)
        #expect(Set(before) == ["1", "2"])
        _ = try await home.update(Toot(id: "1", content: "kotlin one"))
        let afterDelete = await snapshots(recorder, showing: ["2"])
        #expect(afterDelete.last?.change.deletedRows.count == 1)
        _ = try await home.update(Toot(id: "2", content: "swift two, edited"))
        let reloaded = await recorder.snapshots { $0.results.first?.item.content == "swift two, edited" }
        let change = try #require(reloaded.last?.change)
        #expect(change.reloadedRows == [[0, 0]])
        #expect(change.reconfiguredIDs == [reloaded.last?.results.first?.listID])
        _ = await snapshots(recorder, showing: ["2"])
    }

    @Test func windowsLoadAfterTheLastResultAndAFullyLoadedListTakesNewResults() async throws {
        server.value = ((1...5).reversed().map { Toot(id: "\($0)", content: "swift \($0)") })
        let home = try feed()
        await home.refresh()
        let list = try store.searchList("swift", as: Toot.self, order: .recency, pageSize: 2)
        let recorder = StreamRecorder(await list.snapshots)
        let first = await list.snapshot
        #expect(first.results.count == 2)
        #expect(first.hasMore)
        await list.loadMore()
        await list.loadMore()
        await list.loadMore()
        let loaded = await list.snapshot
        #expect(loaded.results.count == 5)
        #expect(Set(loaded.results.map(\.id)) == ["1", "2", "3", "4", "5"])
        #expect(!loaded.hasMore)
        // Everything is loaded: a new match joins the list instead of pushing the last one out.
        let before = loaded.results.map(\.id)
        server.value = ([Toot(id: "6", content: "swift 6")] + server.value)
        await home.refresh()
        let snapshots = await snapshots(recorder, showing: ["6"] + before)
        #expect(snapshots.last?.hasMore == false)
    }

    @Test func aWriteByAnotherStoreOnTheFileReachesTheOpenResults() async throws {
        server.value = ([Toot(id: "1", content: "swift")])
        await (try feed()).refresh()
        let list = try store.searchList("swift", as: Toot.self, order: .recency)
        let recorder = StreamRecorder(await list.snapshots)
        let other = try test.store()
        let theirs = try feed(on: other)
        server.value = ([Toot(id: "2", content: "more swift")] + server.value)
        await theirs.refresh()
        _ = await snapshots(recorder, showing: ["2", "1"])
    }

    @Test func anyTypedTextOpensAListAndClosingTheStoreEndsItsStreams() async throws {
        server.value = ([Toot(id: "1", content: "swift")])
        await (try feed()).refresh()
        for text in ["\"(", "NEAR(", "   ", "-", "*", "🙂"] {
            #expect(try await store.searchList(text, as: Toot.self).snapshot.results.isEmpty)
        }
        let list = try store.searchList("swi", as: Toot.self)
        let recorder = StreamRecorder(await list.snapshots)
        #expect(await list.snapshot.results.map(\.id) == ["1"])
        store.close()
        let ended = await recorder.snapshots { _ in false }
        #expect(ended.count == 1)
    }
}
