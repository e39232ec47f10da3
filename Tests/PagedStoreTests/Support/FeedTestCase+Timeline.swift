import Foundation
import PagedStoreTesting
import TestSupport

@testable import PagedStore

extension FeedTestCase {
    /// A feed over a server of `count` posts (s1001 and up, paged by cursor), refreshed once.
    func refreshedTimeline(
        count: Int, pageSize: Int = 5, policy: FeedPolicy
    ) async throws -> (feed: Feed<Post>, server: TimelineModel, source: ScriptedSource<Post>) {
        let server = TimelineModel(count: count, pageSize: pageSize, byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { server.page(for: $0) }
        let feed = try self.feed(source, policy: policy)
        await feed.refresh()
        return (feed, server, source)
    }

    /// The timeline the gap tests start from: `old` (p0…p29) on a server of pages of 10, with its
    /// first page cached; then 25 new posts n0…n24 on top, and a refresh that leaves n0…n9, a gap,
    /// and p0…p9 (with the keepGap policy).
    /// - Parameter answering: Answers a request instead of the server, when it returns a page.
    func timelineWithAGap(
        _ old: [Post] = .posts("p", 30), policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap),
        answering: (@Sendable (PageRequest, ModelServer) -> Page<Post>?)? = nil
    ) async throws -> (feed: Feed<Post>, server: ModelServer, source: ScriptedSource<Post>) {
        let server = ModelServer(old, pageSize: 10)
        let source = ScriptedSource<Post> { request in answering?(request, server) ?? server.page(for: request) }
        let feed = try self.feed(source, policy: policy)
        await feed.refresh()
        server.items = .posts("n", 25) + server.items
        await feed.refresh()
        return (feed, server, source)
    }

    /// ``timelineWithAGap(_:policy:answering:)`` with a recorder of the feed's snapshots from then on.
    func recordedTimelineWithAGap(
        _ old: [Post] = .posts("p", 30), policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap),
        answering: (@Sendable (PageRequest, ModelServer) -> Page<Post>?)? = nil
    ) async throws -> (feed: Feed<Post>, server: ModelServer, recorder: SnapshotRecorder<Post>) {
        let (feed, server, _) = try await timelineWithAGap(old, policy: policy, answering: answering)
        return (feed, server, await SnapshotRecorder(feed))
    }
}
