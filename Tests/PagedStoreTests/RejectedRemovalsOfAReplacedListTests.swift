import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Every row of a feed removed by queued removals, then a refresh whose page shares nothing with the
/// feed: the list is replaced. The rows and positions the removals named are of the old list, which
/// cannot be told from a list whose every row was removed; rejected, their posts wait for a page to
/// list them again, and come back in the server's order. Put back where they stood, they showed on
/// top of the new rows or among them, and the next page wrote the rows between them below.
@Suite(.limit(minutes: 2)) struct RejectedRemovalsOfAReplacedListTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    func ids(_ prefix: String, _ range: Range<Int>) -> [String] { range.map { "\(prefix)\($0)" } }

    /// p0…p19 loaded from a server of p0…p29, every row's removal queued, then n0…n10 published and
    /// refreshed: the page n0…n9 replaces the list.
    func replaceAListWhoseEveryRowWaitsForItsRemoval(
        _ server: ModelServer, gapPolicy: FeedPolicy.GapPolicy
    ) async throws -> Feed<Post> {
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: gapPolicy))
        await feed.refresh()
        await feed.loadNextPage()
        for id in ids("p", 0..<20) {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        #expect(await feed.snapshot.ids.isEmpty)
        server.items = .posts("n", 11) + server.items
        await feed.refresh()
        #expect(await feed.snapshot.ids == ids("n", 0..<10), "the page replaced the list")
        return feed
    }

    @Test(arguments: [FeedPolicy.GapPolicy.replace, .keepGap])
    func rejectedRemovalsWaitForAPageToListTheirPosts(gapPolicy: FeedPolicy.GapPolicy) async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try await replaceAListWhoseEveryRowWaitsForItsRemoval(server, gapPolicy: gapPolicy)
        let recorder = await SnapshotRecorder(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 20)
        await feed.waitUntilIdle()
        #expect(await feed.snapshot.ids == ids("n", 0..<10), "no rejected post shows before a page lists it")
        #expect(try await feed.pendingEdits().isEmpty)
        try await scrollToTheEnd(feed, "after the rejections")
        try await ReferenceModelTests.check(recorder, feed, test, "after the scroll")
        #expect(await feed.snapshot.ids == ids("n", 0..<11) + ids("p", 0..<30), "every post back, in order")
    }

    /// A next page lists p0…p8 while their removals wait (hidden again at once): those take the
    /// page's places, and a rejection puts each back there; p9…p19 wait for the next page.
    @Test(arguments: [FeedPolicy.GapPolicy.replace, .keepGap])
    func aPageThatListsThePostsAgainGivesTheirRemovalsAPlace(gapPolicy: FeedPolicy.GapPolicy) async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try await replaceAListWhoseEveryRowWaitsForItsRemoval(server, gapPolicy: gapPolicy)
        await feed.loadNextPage()
        #expect(await feed.snapshot.ids == ids("n", 0..<11), "p0…p8 hidden by their removals")
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 20)
        await feed.waitUntilIdle()
        #expect(await feed.snapshot.ids == ids("n", 0..<11) + ids("p", 0..<9), "back where the page listed them")
        try await scrollToTheEnd(feed, "after the rejections")
        #expect(await feed.snapshot.ids == ids("n", 0..<11) + ids("p", 0..<30), "every post back, in order")
    }

    /// Every row hidden, then a refresh whose page is the server's whole list (it ends) and lists none
    /// of them: no place is lost. Rejected, the posts go back in order above the page, which came
    /// after them, none among its rows; the next refresh, starting at the list's head, proves them
    /// deleted.
    @Test(arguments: [FeedPolicy.GapPolicy.replace, .keepGap])
    func rejectedRemovalsOverAPageThatEndsTheListGoBackAboveItInOrder(gapPolicy: FeedPolicy.GapPolicy) async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never, gapPolicy: gapPolicy))
        await feed.refresh()
        await feed.loadNextPage()
        for id in ids("p", 0..<20) {
            _ = try #require(try await feed.enqueue("hide", removing: id, argument: Revision(revision: 4)))
        }
        server.items = .posts("n", 5)
        await feed.refresh()
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 20)
        await feed.waitUntilIdle()
        let shown = await feed.snapshot.ids
        #expect(shown == ids("p", 0..<20) + ids("n", 0..<5))
        try await scrollToTheEnd(feed, "after the rejections", refreshingFirst: true)
        #expect(await feed.snapshot.ids == ids("n", 0..<5), "the server's whole list")
    }

    /// After the replace (keepGap), the server moves p5 between n5 and n6 and publishes m0…m10: the
    /// refresh leaves a gap above n0…n9, whose fill lists p5 between rows the feed has without
    /// writing it (its removal hides it). That listing gives the lost place back: rejected, p5 goes
    /// back there, where no later page lists it again.
    @Test func aGapFillListingTheItemAmongShownRowsGivesItsRemovalAPlace() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try await replaceAListWhoseEveryRowWaitsForItsRemoval(server, gapPolicy: .keepGap)
        var items = server.items
        let p5 = try #require(items.firstIndex { $0.id == "p5" })
        let moved = items.remove(at: p5)
        items.insert(moved, at: try #require(items.firstIndex { $0.id == "n6" }))
        server.items = .posts("m", 11) + items
        await feed.refresh()
        try await scrollToTheEnd(feed, "before the rejections")
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 20)
        await feed.waitUntilIdle()
        try await scrollToTheEnd(feed, "after the rejections", refreshingFirst: true)
        let shown = await feed.snapshot.ids
        #expect(shown == server.items.map(\.id), "p5 back where the fill listed it, every post in order")
    }

    /// The server's list went empty (a refresh replaced the feed's with none), then came back with
    /// p6 above p5, on the first page, and p5 above p4, on the next: the rows p5's removal named are
    /// of the old list, and the next page's place is the one a rejection puts it back to.
    @Test func aRemovalWhosePlaceIsLostTakesThePlaceANextPageListsItAt() async throws {
        let server = ModelServer(.posts("p", 10), pageSize: 5)
        let feed = try test.feed(server.source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        await feed.loadNextPage()
        _ = try #require(try await feed.enqueue("hide", removing: "p5", argument: Revision(revision: 4)))
        let listed = server.items
        server.items = []
        await feed.refresh()
        #expect(await feed.snapshot.ids.isEmpty)
        let reordered = ["p0", "p1", "p2", "p3", "p6", "p5", "p4", "p7", "p8", "p9"]
        server.items = reordered.compactMap { id in listed.first { $0.id == id } }
        await feed.refresh()
        await feed.loadNextPage()
        #expect(await feed.snapshot.ids == reordered.filter { $0 != "p5" }, "p5 hidden by its removal")
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        await feed.waitUntilIdle()
        #expect(await feed.snapshot.ids == reordered, "p5 back where the page listed it")
    }
}
