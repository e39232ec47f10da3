import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A row the app made up (`Feed.insert`) whose queued removal the server rejects goes back as the
/// app's row: pages that skip it prove nothing. Put back as a server's row, the next page listing
/// the rows around it proved it deleted, and the user's post was gone for good.
@Suite(.limit(minutes: 2)) struct RejectedRemovalsOfLocalRowsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// The newest page carries no newer cursor, so each refresh by the newer cursor lists the top
    /// three again, around the local row.
    @Test(arguments: [false, true])
    func aLocalRowWhoseRemovalIsRejectedOutlivesThePagesAroundIt(afterARelaunch: Bool) async throws {
        let server = TimelineModel(
            count: 20, pageSize: 5, byPageNumber: false, sectioned: false, headPageHasNewerCursor: false)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let policy = FeedPolicy(refreshOnOpen: .never, refreshMode: .newerThanHead(maxPages: 2))
        var feed = try test.feed(source, policy: policy)
        await feed.refresh()
        server.publish(3)
        await feed.refresh()
        try await feed.insert(Post(id: "local"), at: 1)
        _ = try #require(try await feed.enqueue("hide", removing: "local", argument: Revision(revision: 4)))
        if afterARelaunch { feed = try test.feed(source, policy: policy, store: try test.store()) }
        let recorder = await SnapshotRecorder(feed)
        #expect(try await test.sendAllQueued(answering: .rejected(reason: "HTTP 403")).count == 1)
        await feed.waitUntilIdle()
        #expect(Array(await feed.snapshot.ids.prefix(3)) == ["s1023", "local", "s1022"])
        await feed.refresh()
        let shown = await feed.snapshot.ids
        #expect(Array(shown.prefix(3)) == ["s1023", "local", "s1022"], "the user's row is gone: \(shown)")
        try await ReferenceModelTests.check(recorder, feed, test, "after the refresh")
    }
}
