import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Refreshes by the newer cursor while the top five posts, s1017…s1013, are hidden by queued
/// removals, and the server bumps some of them among new posts: each bumped post leaves its place,
/// and the removals that named it as a neighbour take that place over. Rejected in any order, every
/// post goes back where the server lists it.
@Suite(.limit(minutes: 2)) struct NewerPagesBumpingHiddenPostsTests: FeedRuleSuite {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// What the server does before the refresh.
    enum ServerStep: Sendable {
        case bump(String), publish(Int)
    }

    static let hidden = ["s1017", "s1016", "s1015", "s1014", "s1013"]

    /// s1017…s1001 cached to the end, `hidden` queued for removal, `steps` on the server, a refresh;
    /// then a second store rejects the removals, those of `answeredLast` last, and the feed must
    /// show the server's list, before and after a scroll to its end.
    private func rejectAfterTheRefresh(
        pageSize: Int = 9, maxPages: Int = 1, lagging: Bool = false, _ steps: [ServerStep],
        answeredLast: Set<String> = []
    ) async throws {
        let server = TimelineModel(
            count: 17, pageSize: pageSize, byPageNumber: false, sectioned: false, headPageHasNewerCursor: !lagging)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: .keepGap, refreshMode: .newerThanHead(maxPages: maxPages),
            itemOrder: .byActivity)
        let feed = try test.feed(source, policy: policy)
        await feed.refresh()
        try await scrollToTheEnd(feed, "cached")
        for id in Self.hidden {
            let kind = answeredLast.contains(id) ? "last" : "first"
            _ = try #require(try await feed.enqueue(kind, removing: id, argument: Revision(revision: 4)))
        }
        for step in steps {
            switch step {
            case .bump(let id): server.bump(id)
            case .publish(let count): server.publish(count)
            }
        }
        await feed.refresh()
        #expect(Set(Self.hidden).isDisjoint(with: await feed.snapshot.ids), "the refresh showed hidden posts")
        let recorder = await SnapshotRecorder(feed)
        let sender = try test.store()
        await sender.outbox.register("first", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await sender.outbox.expectStatus("the first removals answered") { $0.count == answeredLast.count }
        await sender.outbox.register("last", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await sender.outbox.expectEmpty("every removal answered")
        await feed.waitUntilIdle()
        try await check(recorder, feed, "after the answers")
        #expect(await feed.snapshot.ids == server.items.map(\.id))
        try await scrollToTheEnd(feed, "after the answers", refreshingFirst: true)
        #expect(await feed.snapshot.ids == server.items.map(\.id))
        #expect(try await feed.pendingEdits().isEmpty)
    }

    /// s1015 bumped, then twelve posts: the newer page lists them and then s1015, and the removals
    /// of s1016 (naming it below) and s1014 (above) take over the place it left. Naming it still,
    /// s1016 went back next to its new place or, with s1017 above it hidden too, nowhere: two
    /// rejected posts never showed again.
    @Test(arguments: [[], ["s1017", "s1015"]] as [Set<String>])
    func aBumpedPostListedUnderNewOnesLeavesItsPlace(answeredLast: Set<String>) async throws {
        try await rejectAfterTheRefresh([.bump("s1015"), .publish(12)], answeredLast: answeredLast)
    }

    /// Two bumped posts, each the first item of its newer page (pages come from the cursor up): the
    /// page lists new posts too, so each moved. Taken for the head listed again, they kept their
    /// places named, and the removals naming them went back next to their new places, where the
    /// next first page proved them deleted.
    @Test(arguments: [2, 3]) func bumpedPostsFirstOnTheirPagesLeaveTheirPlaces(maxPages: Int) async throws {
        try await rejectAfterTheRefresh(
            pageSize: 4, maxPages: maxPages,
            [.publish(3), .bump("s1015"), .publish(3), .bump("s1013"), .publish(3)])
    }

    /// Two bumped posts in one page: each hands on the place its own removal names as it stands,
    /// after the other's hand-on. Read by position, the removals between them were passed over
    /// (they named rows the page had just moved) and two of them took one place.
    @Test(
        arguments: [["s1015", "s1013"], ["s1013", "s1015"], ["s1014", "s1016"], ["s1017", "s1013"]], [false, true])
    func twoBumpedPostsInOnePageHandOnTheirPlacesInTurn(bumped: [String], answeredLast: Bool) async throws {
        try await rejectAfterTheRefresh(
            bumped.map { .bump($0) } + [.publish(12)], answeredLast: answeredLast ? Set(bumped) : [])
    }
}
