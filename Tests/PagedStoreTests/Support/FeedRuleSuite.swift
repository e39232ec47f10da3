import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A suite whose tests run on a fresh file (`test`), check each step as a UIKit list would see it
/// (``ReferenceModelTests/check(_:_:_:_:)``), and build their pages from numbered posts.
protocol FeedRuleSuite {
    var test: FeedTestCase { get }
}

extension FeedRuleSuite {
    static func posts(_ prefix: String, _ range: Range<Int>) -> [Post] { range.map { Post(id: "\(prefix)\($0)") } }

    static func ids(_ prefix: String, _ range: Range<Int>) -> [String] { range.map { "\(prefix)\($0)" } }

    func check(_ recorder: SnapshotRecorder<Post>, _ feed: Feed<Post>, _ context: String) async throws {
        try await ReferenceModelTests.check(recorder, feed, test, context)
    }

    /// Seeds p0..p9 with older cursor "c1" (first page, by a held source).
    func seeded(
        _ source: ScriptedSource<Post>, policy: FeedPolicy = FeedPolicy(refreshOnOpen: .never)
    ) async throws
        -> Feed<Post>
    {
        let feed = try test.feed(source, policy: policy)
        let refresh = Task { await feed.refresh() }
        await source.nextFetch().respond(Page(items: Self.posts("p", 0..<10), olderCursor: "c1"))
        await refresh.value
        return feed
    }
}
