import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Queued removals next to each other name each other's items as neighbours, in any order they
/// were queued: each goes back in the server's order whatever the order of the answers, also after
/// a row between them stopped decoding, and after a next page went under the bottom ones. When
/// they named the closest shown rows instead, two of them named one pair of rows and came back in
/// the order of their answers, for good under a refresh by the newer cursor.
@Suite(.limit(minutes: 2)) struct RejectedRemovalsNextToOtherRemovalsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    func ids(_ prefix: String, _ range: Range<Int>) -> [String] { range.map { "p\($0)" } }

    /// Another store rejects the removals queued as "first", then, once `count` are left, those
    /// queued as "last".
    func rejectFirstThenLast(leaving count: Int) async throws {
        let sender = try test.store()
        await sender.outbox.register("first", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await sender.outbox.expectStatus("the first removals answered") { $0.count == count }
        await sender.outbox.register("last", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await sender.outbox.expectEmpty("every removal answered")
    }

    /// p3 and p1 hidden (in either order), then p2 stops decoding and leaves; both rejected.
    @Test(arguments: [true, false])
    func removalsAroundARowThatStopsDecodingGoBackInOrder(p1First: Bool) async throws {
        let refused = RefusedIDs()
        let store = try test.store()
        let server = ModelServer(.posts("p", 6), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 3))
        let feed = try test.feed(server.source, policy: policy, store: store, codec: refused.codec)
        await feed.refresh()
        for id in p1First ? ["p1", "p3"] : ["p3", "p1"] {
            try await feed.enqueue("refuse", removing: id, argument: Revision(revision: 0))
        }
        refused.insert("p2")
        #expect(try await feed.enqueue("refuse", removing: "p2", argument: Revision(revision: 0)) == nil)
        let recorder = await SnapshotRecorder(feed)
        await store.outbox.register("refuse", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await store.outbox.waitUntilEmpty()
        await feed.waitUntilIdle()
        let shown = await feed.snapshot.ids
        #expect(shown == ["p0", "p1", "p3", "p4", "p5"])
        try await ReferenceModelTests.check(recorder, feed, test, "after the rejections")
        // A refresh by the newer cursor never lists these rows again: the order stays as it is.
        server.items = .posts("n", 3) + server.items
        try await scrollToTheEnd(feed, "after new posts", refreshingFirst: true)
        let scrolled = await feed.snapshot.ids
        #expect(scrolled == ["n0", "n1", "n2", "p0", "p1", "p3", "p4", "p5"])
    }

    /// Bottom rows hidden in a mixed order, a next page (or two) under them, then two confirmed (the
    /// server deletes them) and two rejected, sent by another store.
    @Test(arguments: [
        (["p16", "p17", "p18", "p19", "p5"], 1), (["p19", "p5", "p17", "p16", "p18"], 1),
        (["p18", "p19", "p17", "p16"], 1), (["p18", "p19", "p17", "p16"], 2),
    ])
    func removalsOfTheBottomRowsGoBackInOrderAfterANextPage(queued: [String], nextPages: Int) async throws {
        let server = ModelServer(.posts("p", 40), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        await feed.loadNextPage()
        for id in queued {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        let recorder = await SnapshotRecorder(feed)
        for _ in 0..<nextPages { await feed.loadNextPage() }
        let confirmed: Set<String> = ["p17", "p19"]
        let sender = try test.store()
        await sender.outbox.register("hide", as: Revision.self) { edit in
            guard confirmed.contains(edit.itemID) else { return .rejected(reason: "HTTP 403") }
            server.removeItems { $0.id == edit.itemID }
            return .confirmed
        }
        await sender.outbox.waitUntilEmpty()
        await feed.waitUntilIdle()
        try await scrollToTheEnd(feed, "after the answers", refreshingFirst: true)
        let shown = await feed.snapshot.ids
        #expect(shown == server.items.map(\.id))
        try await ReferenceModelTests.check(recorder, feed, test, "after the scroll")
    }

    /// A page-numbered list shifted by five posts: the next page lists hidden p15 below p19, outside
    /// the rows its removal names, which it keeps (the shift, not a move), with the place its row had
    /// there. Then the removals of `queued` (rows next to p15's place), all rejected, and p15's last.
    @Test(arguments: [["p19"], ["p16", "p17", "p18", "p19"], ["p19", "p18", "p17", "p16"]])
    func removalsNextToAnItemThatCameBackOutsideItsPlaceGoBackInOrder(queued: [String]) async throws {
        let server = ModelServer(.posts("p", 40), pageSize: 10)
        let feed = try test.feed(server.pageNumberSource, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        await feed.loadNextPage()
        _ = try #require(try await feed.enqueue("first", removing: "p15", argument: Revision(revision: 4)))
        server.items = .posts("n", 5) + server.items
        await feed.loadNextPage()
        for id in queued {
            _ = try #require(try await feed.enqueue("then", removing: id, argument: Revision(revision: 4)))
        }
        let recorder = await SnapshotRecorder(feed)
        let sender = try test.store()
        await sender.outbox.register("then", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await sender.outbox.expectStatus("the later removals answered", within: .seconds(30)) { $0.count <= 1 }
        await sender.outbox.register("first", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await sender.outbox.expectEmpty("every removal answered")
        await feed.waitUntilIdle()
        try await ReferenceModelTests.check(recorder, feed, test, "after the answers")
        let shown = await feed.snapshot.ids
        let expected = ids("p", 13..<21)
        let from = try #require(shown.firstIndex(of: "p13"))
        #expect(Array(shown[from..<min(from + expected.count, shown.count)]) == expected)
        try await scrollToTheEnd(feed, "after the answers", refreshingFirst: true)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// p9 bumped to the top under a new post n0 while its removal waits: the refresh lists it there
    /// (not the rows it names), and its removal keeps its place. n0's removal, next to p9's new row,
    /// names the rows of the top; rejected after p9's is confirmed, n0 goes back on top.
    @Test func aRemovalAboveAnItemBumpedToTheTopGoesBackOnTop() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        await feed.loadNextPage()
        _ = try #require(try await feed.enqueue("first", removing: "p9", argument: Revision(revision: 4)))
        let p9 = server.items.remove(at: 9)
        server.items = .posts("n", 1) + [p9] + server.items
        await feed.refresh()
        _ = try #require(try await feed.enqueue("then", removing: "n0", argument: Revision(revision: 4)))
        let recorder = await SnapshotRecorder(feed)
        let sender = try test.store()
        await sender.outbox.register("first", as: Revision.self) { edit in
            server.removeItems { $0.id == edit.itemID }
            return .confirmed
        }
        await sender.outbox.register("then", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await sender.outbox.expectEmpty("every removal answered")
        await feed.waitUntilIdle()
        #expect(await feed.snapshot.ids.first == "n0")
        try await ReferenceModelTests.check(recorder, feed, test, "after the answers")
    }

    /// The top rows hidden, three of them from the server's newest page, whose answer carries no
    /// newer cursor: a refresh by the newer cursor lists them again, above the places of the hidden
    /// rows under them, and they go again. The lowest of the three names s1020's item below it, not
    /// the first row shown; rejected while s1020's removal waits, it goes back above s1020's place.
    @Test(arguments: [["s1020"], ["s1020", "s1019"], ["s1019"]])
    func itemsAPageListsAgainNameTheHiddenItemsUnderThem(answeredLast: Set<String>) async throws {
        let server = TimelineModel(
            count: 20, pageSize: 5, byPageNumber: false, sectioned: false, headPageHasNewerCursor: false)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let policy = FeedPolicy(refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 2))
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        server.publish(3)
        await feed.refresh()
        let top = ["s1023", "s1022", "s1021", "s1020", "s1019"]
        #expect(Array(await feed.snapshot.ids.prefix(5)) == top)
        for id in top {
            let kind = answeredLast.contains(id) ? "last" : "first"
            _ = try #require(try await feed.enqueue(kind, removing: id, argument: Revision(revision: 4)))
        }
        await feed.refresh()
        #expect(await feed.snapshot.ids.first == "s1018", "the refresh showed items whose removals wait")
        let recorder = await SnapshotRecorder(feed)
        try await rejectFirstThenLast(leaving: answeredLast.count)
        await feed.waitUntilIdle()
        #expect(Array(await feed.snapshot.ids.prefix(6)) == top + ["s1018"])
        try await ReferenceModelTests.check(recorder, feed, test, "after the answers")
        try await scrollToTheEnd(feed, "after the answers", refreshingFirst: true)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// A local post on top, then the server's top two, hidden; a refresh lists the two again under a
    /// post bumped to the top, above the local post's place, which names p0 below it: a place the
    /// page contradicts. p1 goes again naming p2 below it, as the page lists them, not that place;
    /// rejected in the order queued, the three go back in it.
    @Test func aPlaceThePageContradictsIsNoNeighbour() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        try await feed.insert(Post(id: "local"), at: 0)
        for id in ["local", "p0", "p1"] {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        let bumped = server.items.remove(at: 20)
        server.items.insert(bumped, at: 0)
        await feed.refresh()
        #expect(Array(await feed.snapshot.ids.prefix(2)) == ["p20", "p2"])
        let recorder = await SnapshotRecorder(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 3)
        await feed.waitUntilIdle()
        #expect(Array(await feed.snapshot.ids.prefix(5)) == ["p20", "local", "p0", "p1", "p2"])
        try await ReferenceModelTests.check(recorder, feed, test, "after the answers")
    }

    /// The bottom three rows hidden, a next page under them, then p8 bumped to the top: a refresh
    /// lists it there, above new posts and a gap. p7 names p8 below it, which now stands above the
    /// row p7 names above it: rejected, p7 goes back under p6, not on top, where the next refresh
    /// would prove it deleted.
    @Test func aRemovalWhoseNeighbourWasBumpedToTheTopGoesBackUnderTheRowAboveIt() async throws {
        let server = TimelineModel(count: 30, pageSize: 5, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let feed = try test.feed(source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap))
        await feed.refresh()
        await feed.loadNextPage()
        let bottom = ["s1023", "s1022", "s1021"]
        #expect(Array(await feed.snapshot.ids.suffix(3)) == bottom)
        for id in bottom {
            let kind = id == "s1022" ? "last" : "first"
            _ = try #require(try await feed.enqueue(kind, removing: id, argument: Revision(revision: 4)))
        }
        await feed.loadNextPage()
        server.publish(4)
        server.bump("s1022")
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        try await rejectFirstThenLast(leaving: 1)
        await feed.waitUntilIdle()
        let shown = await feed.snapshot.ids
        #expect(shown.first == "s1022")
        #expect(shown.firstIndex(of: "s1023") == shown.firstIndex(of: "s1024").map { $0 + 1 })
        try await ReferenceModelTests.check(recorder, feed, test, "after the answers")
        try await scrollToTheEnd(feed, "after the answers", refreshingFirst: true)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// p14 hidden, naming p13 and p15; the server bumps p15 to the top, and a refresh moves it
    /// there, above p13. Rejected, p14 goes back under p13: the rows it names stand the other way
    /// round now, and it was lost for good when that left it no place.
    @Test func aRemovalWhoseRowBelowWasBumpedComesBackUnderTheRowAbove() async throws {
        let server = ModelServer(.posts("p", 40), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        await feed.loadNextPage()
        _ = try #require(try await feed.enqueue("hide", removing: "p14", argument: Revision(revision: 4)))
        server.items.insert(server.items.remove(at: 15), at: 0)
        await feed.refresh()
        #expect(await feed.snapshot.ids.first == "p15")
        let recorder = await SnapshotRecorder(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        await feed.waitUntilIdle()
        try await ReferenceModelTests.check(recorder, feed, test, "after the answer")
        try await scrollToTheEnd(feed, "after the answer", refreshingFirst: true)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// As above, then p16 hidden, right under p14's place, which the rows it names contradict; both
    /// rejected in either order go back under p13, in order.
    @Test(arguments: [true, false])
    func aRemovalUnderAContradictedPlaceGoesBackInOrder(p14First: Bool) async throws {
        let server = ModelServer(.posts("p", 40), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        await feed.loadNextPage()
        _ = try #require(try await feed.enqueue("first", removing: "p14", argument: Revision(revision: 4)))
        server.items.insert(server.items.remove(at: 15), at: 0)
        await feed.refresh()
        _ = try #require(try await feed.enqueue("last", removing: "p16", argument: Revision(revision: 4)))
        let recorder = await SnapshotRecorder(feed)
        let sender = try test.store()
        for kind in p14First ? ["first", "last"] : ["last", "first"] {
            await sender.outbox.register(kind, as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
            await sender.outbox.expectStatus("\(kind) answered") { $0.edits.allSatisfy { $0.kind != kind } }
        }
        await feed.waitUntilIdle()
        let shown = await feed.snapshot.ids
        let from = try #require(shown.firstIndex(of: "p13"))
        #expect(Array(shown[from..<min(from + 4, shown.count)]) == ["p13", "p14", "p16", "p17"])
        try await ReferenceModelTests.check(recorder, feed, test, "after the answers")
        try await scrollToTheEnd(feed, "after the answers", refreshingFirst: true)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
    }

    /// The bottom row's removal edited by hand to a place near the largest position: the next page
    /// is not written there, outside the range `pagedb verify` allows, but under the bottom row.
    @Test(arguments: [Int64.max - 1, Int64.max - (1 << 40) - 1, Int64.max - (1 << 40) + 1, (1 << 62) - 1] as [Int64])
    func aNextPageIgnoresAHandEditedPlaceWithNoRoomBelowIt(position: Int64) async throws {
        let server = ModelServer(.posts("p", 20), pageSize: 5)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        _ = try #require(try await feed.enqueue("hide", removing: "p4", argument: Revision(revision: 4)))
        try ForeignWriter.execute("UPDATE pending_edit SET removed_position = \(position)", on: test.path)
        let recorder = await SnapshotRecorder(feed)
        await feed.loadNextPage()
        await feed.loadNextPage()
        if case .failed(let error) = await feed.snapshot.nextPage { Issue.record("next page failed: \(error)") }
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        await feed.waitUntilIdle()
        try await scrollToTheEnd(feed, "after the rejection", refreshingFirst: true)
        #expect(await feed.snapshot.ids == ids("p", 0..<20))
        try await ReferenceModelTests.check(recorder, feed, test, "after the scroll")
    }
}
