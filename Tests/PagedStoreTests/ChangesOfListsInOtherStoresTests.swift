import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Another store's model that does not decode a value it did not expect (revision 3: a model change
/// on the server the second target does not know yet).
struct StrictPost: FeedItem, Codable, Equatable {
    let id: String
    var revision: Int = 0
    var section: String? = nil
    var sectionKey: String? { section }
    init(id: String, revision: Int, section: String?) {
        (self.id, self.revision, self.section) = (id, revision, section)
    }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        revision = try c.decodeIfPresent(Int.self, forKey: .revision) ?? 0
        section = try c.decodeIfPresent(String.self, forKey: .section)
        if revision == 3 {
            throw DecodingError.dataCorruptedError(forKey: .revision, in: c, debugDescription: "unexpected")
        }
    }
}

/// Lists of one feed in several stores of a process, each with its own model: an edit goes again
/// with the change of the list that made it, and a model that cannot read a value never makes
/// another store's feed drop or detach an edit.
@Suite(.limit()) struct ChangesOfListsInOtherStoresTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// Store B (StrictPost) queues an update of p1; store A (Post) refreshes "home" with a value B's
    /// model cannot decode: A replays B's edit by what it changed (revision 7 on the server's copy),
    /// and the edit stays pending, shown.
    @Test func anotherStoresModelThatCannotDecodeTheServerCopyKeepsAQueuedEdit() async throws {
        let server = ModelServer(.posts("p", 3, section: "s"), pageSize: 10)
        let (storeA, feedA, storeB, feedB) = try await test.homeInTwoModels(server)
        let seen = Locked<[String]>([])
        _ = try await feedB.enqueue("revise", id: "p1", argument: Revision(revision: 7)) {
            let ran = "B ran on \($0)"
            seen.mutate { $0.append(ran) }
            $0.revision = 7
        }
        var items = server.items
        items[1].revision = 3
        items[1].section = "t"
        server.items = items
        await feedA.refresh()
        let p1 = try test.postsOnDisk().first { $0.id == "p1" }
        let queued = try DatabaseQueue(path: test.path).read { try $0.queuedEdits() }
        let idsA = await feedA.snapshot.ids
        #expect(try await feedA.pendingEdits().count == 1, "B's edit stays pending in A's feed too")
        #expect(idsA.contains("p1"), "A decodes p1 and still lists it")
        #expect(queued.count == 1, "the queued edit stays")
        #expect(p1?.revision == 7, "the row shows the pending edit on the server's copy: \(String(describing: p1))")
        withExtendedLifetime((storeA, storeB, feedA, feedB)) {}
    }

    /// Two lists of "home" in one store, A1 edits p1 (revision = 1), A2 edits p1 again (+= 10):
    /// a rejection of the first must leave revision 10 on the server's 0 (A2's change on the restored
    /// value), once.
    @Test func twoListsOfOneFeedInOneStoreRejectionRunsTheLaterChangeOnce() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        let store = try test.store()
        let a1 = try test.feed(server.source, store: store)
        await a1.refresh()
        let a2 = try test.feed(server.source, store: store)
        _ = await a2.snapshots.first { _ in true }
        let seen = Locked<[String]>([])
        let gate = FetchGate()
        gate.arm()
        let sends = SendCounts()
        await store.outbox.register("revise", as: Revision.self) { edit in
            sends.add(edit.idempotencyKey)
            if edit.argument.revision == 1 { await gate.pass(); return .rejected(reason: "no") }
            return .confirmed
        }
        let k1 = try #require(
            try await a1.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 })
        _ = await gate.arrival()
        let k2 = try #require(
            try await a2.enqueue("revise", id: "p1", argument: Revision(revision: 2)) {
                let ran = "A2 ran on \($0.revision)"
                seen.mutate { $0.append(ran) }
                $0.revision += 10
            })
        gate.release()
        await store.outbox.waitUntilEmpty()
        let p1 = try test.postsOnDisk().first { $0.id == "p1" }
        #expect(p1?.revision == 10)
        #expect(sends.count(k1) == 1 && sends.count(k2) == 1)
        withExtendedLifetime((store, a1, a2)) {}
    }

    /// The same with B's optimistic (not queued) edit held in its commit: A's refresh must not drop it.
    @Test func anotherStoresModelThatCannotDecodeKeepsAnOptimisticEdit() async throws {
        let server = ModelServer(.posts("p", 3, section: "s"), pageSize: 10)
        let (storeA, feedA, storeB, feedB) = try await test.homeInTwoModels(server)
        let gate = FetchGate()
        gate.arm()
        let editing = Task {
            try await feedB.edit(id: "p1", { $0.revision = 7 }, commit: { _ in await gate.pass() })
        }
        _ = await gate.arrival()
        var items = server.items
        items[1].revision = 3
        server.items = items
        await feedA.refresh()
        let pendingA = try await feedA.pendingEdits()
        let p1 = try test.postsOnDisk().first { $0.id == "p1" }
        #expect(await feedA.snapshot.ids.contains("p1"))
        #expect(pendingA.count == 1, "B's edit, still in flight, stays pending")
        #expect(p1?.revision == 7)
        gate.release()
        _ = try await editing.value
        withExtendedLifetime((storeA, storeB, feedA, feedB)) {}
    }
}

/// A rejection whose later edits were made by a list whose model cannot read the restored value.
@Suite(.limit()) struct RejectionsUnderAnotherModelsChangeTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// Store A (Post) queues e1 on p1, store B (StrictPost, which does not decode revision 3) queues
    /// e2 on top; the server moves p1 to revision 3 and A refreshes, so that e1 now stands on it.
    /// The server rejects e1: an outbox rolls it back to revision 3 and carries e2 onto it with B's
    /// change, which cannot decode it, so e2 goes by what it changed. The outbox is A's, which
    /// settles through A's open feed, or that of a store where no list of the feed is open, which
    /// settles alone.
    @Test(arguments: [false, true])
    func aRejectionWhoseLaterEditsChangeCannotDecodeTheRestoredValue(settledWithoutTheFeed: Bool) async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        let (storeA, feedA, storeB, feedB) = try await test.homeInTwoModels(server)
        // Observed: its list follows the file, and lends its edits' changes to the other stores.
        let watchedB = await ObservedList(feedB)
        let gate = FetchGate()
        gate.arm()
        let sends = SendCounts()
        let sender = settledWithoutTheFeed ? try test.store() : storeA
        await sender.outbox.register("revise", as: Revision.self) { edit in
            sends.add(edit.idempotencyKey)
            if edit.argument.revision == 1 {
                await gate.pass()
                return .rejected(reason: "no")
            }
            return .confirmed
        }
        let k1 = try #require(
            try await feedA.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 })
        #expect(await gate.arrival())
        #expect(
            await watchedB.firstSnapshot { $0.rows.loadedItems.contains { $0.id == "p1" && $0.revision == 1 } } != nil)
        let k2 = try #require(
            try await feedB.enqueue("revise", id: "p1", argument: Revision(revision: 7)) { $0.revision += 6 })
        var items = server.items
        items[1].revision = 3
        server.items = items
        await feedA.refresh()
        gate.release()
        await sender.outbox.waitUntilEmpty()
        let p1 = try test.postsOnDisk().first { $0.id == "p1" }
        #expect(sends.count(k1) == 1 && sends.count(k2) == 1, "each edit sent once")
        #expect(p1?.revision == 7, "e2 by what it changed on the restored revision 3: \(String(describing: p1))")
        withExtendedLifetime((storeA, storeB, feedA, feedB, sender, watchedB)) {}
    }
}

extension FeedTestCase {
    /// "home" refreshed in store A as `Post`, and open in store B as `StrictPost`.
    func homeInTwoModels(
        _ server: ModelServer
    ) async throws -> (FeedStore, Feed<Post>, FeedStore, Feed<StrictPost>) {
        let storeA = try store()
        let feedA = try feed(server.source, store: storeA)
        await feedA.refresh()
        let storeB = try store()
        let strict: ScriptedSource<StrictPost> = server.source {
            StrictPost(id: $0.id, revision: $0.revision, section: $0.section)
        }
        let feedB = try storeB.feed("home", source: strict, policy: FeedPolicy(refreshOnOpen: .never))
        _ = await feedB.snapshots.first { _ in true }
        return (storeA, feedA, storeB, feedB)
    }
}
