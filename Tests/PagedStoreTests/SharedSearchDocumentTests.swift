import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

private struct CallRefused: Error {}

/// A shared item's one document where its feeds' copies differ (a feed's pending insert keeps its
/// draft, see `SharedCopyRule`), and where a second store or a rebuild changes the rows under a live
/// list: the document always holds a copy some row shows.
@Suite(.limit(minutes: 2)) struct SharedSearchDocumentTests {
    let base: SearchAttackTests
    var store: FeedStore { base.store }
    var test: FeedTestCase { base.test }

    init() throws { base = try SearchAttackTests() }

    /// "profile" inserts shared item x optimistically (its call held); "home" then refreshes a page
    /// holding the server's x. The pending insert's row keeps its own text (SharedCopyRule skips a
    /// holder with a pending insert), so rows disagree: the one document holds both.
    @Test func aPendingInsertOfASharedItemStaysSearchableWhenAnotherFeedBringsTheServerCopy() async throws {
        let homeItems = Locked([SharedToot(id: "y", content: "heron")])
        let (home, profile) = try await base.openShared(
            homeItems, profile: Locked([SharedToot(id: "z", content: "heron")]))
        let (held, answer) = AsyncStream.makeStream(of: Void.self)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let inserting = Task {
            try await profile.insert(SharedToot(id: "x", content: "draft otter"), at: 0) { _ in
                start.yield()
                for await _ in held { return }
                throw CallRefused()
            }
        }
        for await _ in started { break }
        #expect(try base.searched("otter") == ["x"])
        homeItems.value = [SharedToot(id: "x", content: "server walrus"), SharedToot(id: "y", content: "heron")]
        await home.refresh()
        let profileRow = try test.itemsOnDisk(of: SharedToot.self, key: "profile").first { $0.id == "x" }
        let homeRow = try test.itemsOnDisk(of: SharedToot.self, key: "home").first { $0.id == "x" }
        // Record what the rows show, so the failure below is self-explanatory.
        #expect(
            profileRow?.content == "draft otter", "profile's pending insert shows \(String(describing: profileRow))")
        #expect(homeRow?.content == "server walrus", "home's row \(String(describing: homeRow))")
        // The one document holds both copies: x is found by either, once, showing the row that
        // holds the words.
        #expect(try store.search("otter", as: SharedToot.self, in: ["profile"]).map(\.id) == ["x"])
        #expect(try store.search("otter", as: SharedToot.self).map(\.feedKey) == ["profile"])
        #expect(try store.search("walrus", as: SharedToot.self).map(\.feedKey) == ["home"])
        #expect(try store.search("walrus", as: SharedToot.self, in: ["profile"]).isEmpty)
        try base.expectSearchIsTheRows(["otter", "walrus"])
        // home's row goes: only profile's row ("draft otter") shows x now.
        #expect(try await home.remove(id: "x"))
        #expect(
            try store.search("walrus", as: SharedToot.self).map(\.id).isEmpty,
            "no row shows walrus any more, yet search finds x by it")
        #expect(try store.search("otter", as: SharedToot.self).map(\.id) == ["x"])
        try base.expectSearchIsTheRows(["otter", "walrus"])
        answer.finish()
        _ = try? await inserting.value
        try base.expectSearchIsTheRows(["otter", "walrus"])
    }

    /// "home" holds x; "profile" inserts x optimistically and the call fails: the rollback must
    /// leave home's row and the search as the server's copy.
    @Test func aRolledBackOptimisticInsertOfASharedItemAnotherFeedHolds() async throws {
        let homeItems = Locked([SharedToot(id: "x", content: "server walrus")])
        let (_, profile) = try await base.openShared(
            homeItems, profile: Locked([SharedToot(id: "z", content: "heron")]))
        await #expect(throws: CallRefused.self) {
            try await profile.insert(SharedToot(id: "x", content: "draft otter"), at: 0) { _ in
                throw CallRefused()
            }
        }
        let homeRow = try test.itemsOnDisk(of: SharedToot.self, key: "home").first { $0.id == "x" }
        #expect(homeRow?.content == "server walrus", "home's row after the rollback: \(String(describing: homeRow))")
        #expect(try store.search("walrus", as: SharedToot.self).map(\.id) == ["x"])
        #expect(try store.search("otter", as: SharedToot.self).map(\.id).isEmpty)
        try base.expectSearchIsTheRows(["otter", "walrus"])
    }

    /// A live list restricted to one feed, while a second FeedStore on the file deletes that feed's
    /// rows by a new cache version and another feed keeps the shared item.
    @Test func aLiveListOfOneFeedFollowsASecondStoreClearingIt() async throws {
        let items = Locked([SharedToot(id: "x", content: "otter"), SharedToot(id: "y", content: "otter two")])
        _ = try await base.openShared(items, profile: Locked([SharedToot(id: "x", content: "otter")]))
        let list = try store.searchList("otter", as: SharedToot.self, in: ["home"], order: .recency)
        let recorder = StreamRecorder(await list.snapshots)
        _ = await recorder.snapshots { !$0.results.isEmpty }
        #expect(await list.snapshot.results.map(\.feedKey).allSatisfy { $0 == "home" })
        let other = try test.store()
        _ = try other.feed(
            "home", source: base.source(Locked([SharedToot]())),
            policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 5))
        let snapshots = await recorder.snapshots { $0.results.isEmpty }
        SearchSnapshotChecks.check(snapshots, "cleared by another store")
        #expect(snapshots.last?.results.isEmpty == true)
        #expect(try store.search("otter", as: SharedToot.self, in: ["home"]).isEmpty)
        #expect(try store.search("otter", as: SharedToot.self, in: ["profile"]).map(\.id) == ["x"])
        try base.expectSearchIsTheRows(["otter", "two"])
    }

    /// The outbox form of the rollback: "profile" queues an insert of x, which "home" already holds;
    /// the server rejects it. Home's row shows the server's x: search must find it by that text.
    @Test func aRejectedQueuedInsertOfASharedItemAnotherFeedHolds() async throws {
        let (home, profile) = try await base.openShared(
            Locked([SharedToot(id: "x", content: "server walrus")]),
            profile: Locked([SharedToot(id: "z", content: "heron")]))
        _ = try await profile.enqueue(
            "post", inserting: SharedToot(id: "x", content: "draft otter"), at: 0, argument: Revision(revision: 1))
        await store.outbox.register("post", as: Revision.self) { _ in .rejected(reason: "HTTP 422") }
        await store.outbox.waitUntilEmpty()
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").map(\.id) == ["z"])
        #expect(
            try test.itemsOnDisk(of: SharedToot.self, key: "home") == [SharedToot(id: "x", content: "server walrus")])
        #expect(try store.search("walrus", as: SharedToot.self).map(\.id) == ["x"], "home shows walrus")
        #expect(try store.search("otter", as: SharedToot.self).map(\.id).isEmpty, "no row shows otter")
        try base.expectSearchIsTheRows(["otter", "walrus"])
        _ = home
    }

    /// A queued insert pending in "profile" while "home" refreshes the server's copy of the same id.
    @Test func aPendingQueuedInsertOfASharedItemIsFoundByItsText() async throws {
        let homeItems = Locked([SharedToot(id: "y", content: "heron")])
        let (home, profile) = try await base.openShared(
            homeItems, profile: Locked([SharedToot(id: "z", content: "heron")]))
        _ = try await profile.enqueue(
            "post", inserting: SharedToot(id: "x", content: "draft otter"), at: 0, argument: Revision(revision: 1))
        homeItems.value = [SharedToot(id: "x", content: "server walrus"), SharedToot(id: "y", content: "heron")]
        await home.refresh()
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").first?.content == "draft otter")
        #expect(try store.search("otter", as: SharedToot.self, in: ["profile"]).map(\.id) == ["x"])
        #expect(try store.search("walrus", as: SharedToot.self).map(\.feedKey) == ["home"])
        try base.expectSearchIsTheRows(["otter", "walrus"])
    }

    /// A queued edit of x pending while a trim takes x's row, then the next page brings x back.
    @Test func aQueuedEditWhoseRowWasTrimmedAndFetchedAgain() async throws {
        let source = ScriptedSource<Toot> { request in
            switch request {
            case .olderThan: return Page(items: [Toot(id: "x", content: "otter")], olderCursor: nil)
            default: return Page(items: [Toot(id: "a", content: "heron")], olderCursor: "1")
            }
        }
        let home = try store.feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        await home.refresh()
        await home.loadNextPage()
        _ = try await home.enqueue("revise", id: "x", argument: Revision(revision: 1)) { $0.content = "beaver" }
        try base.expectSearchIsTheRows(["otter", "beaver"])
        _ = try await home.trim(maxRows: 1)
        try base.expectSearchIsTheRows(["otter", "beaver", "heron"])
        await home.loadNextPage()
        try base.expectSearchIsTheRows(["otter", "beaver", "heron"])
    }

    /// A live list open on two feeds sharing x while a second FeedStore on the file removes home's
    /// row, then `pagedb reindex` (another connection) rebuilds the index: the list follows each.
    @Test func aLiveListFollowsASecondStoreAndAReindexOfASharedItem() async throws {
        let items = Locked([SharedToot(id: "x", content: "otter"), SharedToot(id: "y", content: "otter too")])
        _ = try await base.openShared(items, profile: Locked([SharedToot(id: "x", content: "otter")]))
        let list = try store.searchList("otter", as: SharedToot.self, order: .recency, pageSize: 1)
        let recorder = StreamRecorder(await list.snapshots)
        await list.loadMore()
        await list.loadMore()
        let first = await recorder.snapshots { $0.results.count == 2 }
        SearchSnapshotChecks.check(first, "loaded")
        #expect(first.last.map { $0.results.map(\.feedKey) }?.sorted() == ["home", "home"])
        let other = try test.store()
        let homeThere = try other.feed("home", source: base.source(items), policy: FeedPolicy(refreshOnOpen: .never))
        #expect(try await homeThere.remove(id: "x"))
        let moved = await recorder.snapshots { $0.results.contains { $0.id == "x" && $0.feedKey == "profile" } }
        SearchSnapshotChecks.check(moved, "moved to profile")
        #expect(moved.last?.results.count == 2)
        try DatabaseQueue(path: test.path).write { store in _ = try store.rebuildSearchIndex() }
        try base.expectSearchIsTheRows(["otter", "too"])
        #expect(
            await list.snapshot.results.map(\.listID).sorted()
                == (try store.search("otter", as: SharedToot.self)).map(\.listID).sorted())
    }

    /// A trim takes a shared item's row from one feed while the other feed's queued edit shows it,
    /// each way round, and the edit is then rejected.
    @Test(arguments: [true, false]) func aTrimOfASharedRowWhileAQueuedEditShowsIt(trimTheEditor: Bool) async throws {
        let paged = ScriptedSource<SharedToot> { request in
            switch request {
            case .olderThan: return Page(items: [SharedToot(id: "x", content: "otter")], olderCursor: nil)
            default: return Page(items: [SharedToot(id: "a", content: "heron")], olderCursor: "1")
            }
        }
        let policy = FeedPolicy(refreshOnOpen: .never)
        let home = try store.feed("home", source: paged, policy: policy)
        let profile = try store.feed("profile", source: paged, policy: policy)
        for feed in [home, profile] {
            await feed.refresh()
            await feed.loadNextPage()
        }
        let (editor, trimmed) = trimTheEditor ? (profile, profile) : (profile, home)
        _ = try await editor.enqueue("revise", id: "x", argument: Revision(revision: 1)) { $0.content = "beaver" }
        try base.expectSearchIsTheRows(["otter", "beaver"])
        _ = try await trimmed.trim(maxRows: 1)
        try base.expectSearchIsTheRows(["otter", "beaver", "heron"])
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await store.outbox.waitUntilEmpty()
        try base.expectSearchIsTheRows(["otter", "beaver", "heron"])
    }

    /// A feed cleared whole, past one batch of leaving rows, whose documents another feed keeps:
    /// each holds the other feed's copy after, also where its text was left by hand as no row shows it.
    @Test func aClearedFeedLeavesEveryKeptDocumentShowingTheOtherFeedsCopy() async throws {
        let count = PageStore.rowsPerSharedDocumentBatch * 2 + 500
        let items = Locked((0..<count).map { SharedToot(id: "t\($0)", content: "otter \($0)") })
        _ = try await base.openShared(items)
        try ForeignWriter.execute(
            "INSERT OR REPLACE INTO item_search (rowid, body) SELECT doc, 'walrus' FROM search_doc;", on: test.path)
        try DatabaseQueue(path: test.path).write { store in
            guard var home = try store.feed(key: "home") else { return }
            try store.clearFeed(&home)
        }
        #expect(try store.search("walrus", as: SharedToot.self).isEmpty, "a document kept text no row shows")
        #expect(try store.search("otter", as: SharedToot.self, in: ["profile"], limit: count).count == count)
        try base.expectSearchIsTheRows(["otter", "walrus"])
    }
}
