import Foundation
import PagedStore
import PagedStoreFixtures

/// A post of the demo timeline.
struct DemoPost: FeedItem, Codable, Equatable {
    static let searchableFields = ["title"]
    let id: String
    var title: String
    var likes: Int
}

/// An in-process timeline server with latency, pages by cursor, new posts and scripted failures.
/// A cursor is the id of the last post of the page it came with.
actor DemoServer: PageSource {
    private var posts: [DemoPost]
    private var newest: Int
    private var failuresLeft = 0
    /// Requests answered or failed so far, for the demo's "n requests" lines.
    private(set) var requests = 0
    private let latency: Duration
    private let pageSize = 10

    /// An empty timeline answering after `latency`.
    init(latency: Duration) {
        newest = 0
        posts = []
        self.latency = latency
    }

    /// Starts the timeline again: `post-newest` on top, down to `post-1`.
    func startTimeline(newest: Int) {
        self.newest = newest
        posts = (1...max(newest, 1)).reversed().map { DemoPost(id: "post-\($0)", title: "Post \($0)", likes: 0) }
    }

    /// Publishes `count` new posts on top.
    func publish(_ count: Int) {
        for _ in 0..<count {
            newest += 1
            posts.insert(DemoPost(id: "post-\(newest)", title: "Post \(newest)", likes: 0), at: 0)
        }
    }

    /// Deletes the post at `index` (its author deleted it).
    func delete(at index: Int) {
        if posts.indices.contains(index) { posts.remove(at: index) }
    }

    /// Adds a like to the post at `index` (its payload changes: a refresh reloads its row).
    func like(at index: Int) {
        if posts.indices.contains(index) { posts[index].likes += 1 }
    }

    /// Makes the next `count` requests fail.
    func failNext(_ count: Int) { failuresLeft = count }

    nonisolated func fetch(_ request: PageRequest) async throws -> Page<DemoPost> {
        try await Task.sleep(for: latency)
        return try await answer(request)
    }

    private func answer(_ request: PageRequest) throws -> Page<DemoPost> {
        requests += 1
        if failuresLeft > 0 {
            failuresLeft -= 1
            throw SimulatedTimeout()
        }
        return ListPager.page(request, of: posts, size: pageSize)
    }
}

/// The demo server's scripted failure.
struct SimulatedTimeout: Error, CustomStringConvertible {
    var description: String { "the server timed out (simulated)" }
}
