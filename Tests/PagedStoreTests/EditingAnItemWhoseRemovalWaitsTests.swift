import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// An edit of an item whose removal waits for its server call is refused with an error, never
/// taken for an item the feed lacks.
@Suite(.limit()) struct EditingAnItemWhoseRemovalWaitsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func enqueuingAnEditAfterAQueuedRemovalThrows() async throws {
        let feed = try test.feed(ModelServer(.posts("p", 4), pageSize: 10).source)
        await feed.refresh()
        try await feed.enqueue("remove", removing: "p1", argument: Revision(revision: 0))
        await #expect(throws: FeedError.self) {
            try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        }
        await #expect(throws: FeedError.self) {
            try await feed.enqueue("remove", removing: "p1", argument: Revision(revision: 0))
        }
        #expect(try await feed.enqueue("revise", id: "nosuch", argument: Revision(revision: 1)) { _ in } == nil)
    }
}
