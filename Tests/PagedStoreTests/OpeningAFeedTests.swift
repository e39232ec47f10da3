import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Opening a feed that exists with the same policy leaves its row and the change record alone: a
/// relaunch, an extension or a second screen opening it writes nothing the open lists follow (only,
/// at most once a minute, the mark of when the feed was last opened, for the store's budget), so the
/// feeds already open keep their exact changes.
@Suite(.limit(minutes: 3)) struct OpeningAFeedTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// A policy that sets every field, so its JSON has many keys to order.
    static let policy = FeedPolicy(
        refreshOnOpen: .whenOlderThan(seconds: 60), gapPolicy: .keepGap, refreshMode: .newerThanHead(maxPages: 2),
        prefetchDistance: 4, windowSize: 200, firstScreenRows: 30, maxRows: 500, maxAge: 86_400,
        maxPagesWithoutNewItems: 3, autoFillGapPages: 1, keepsReadingPosition: true)
    /// Another screen's policy: opening a feed with it in between makes the next open encode again.
    static let otherPolicy = FeedPolicy(refreshOnOpen: .never, prefetchDistance: 9)

    @Test func openingAFeedWithItsPolicyWritesNothingHoweverOftenItIsOpened() async throws {
        let server = ModelServer(.posts("p", 12), pageSize: 5)
        try await test.feed(server.source, policy: Self.policy).refresh()
        let writes = try FileWrites(test.path)
        for round in 0..<20 {
            let store = try test.store()
            _ = try test.feed(server.source, policy: Self.otherPolicy, key: "other", store: store)
            #expect(try writes.feedsWrittenSinceLastAsked() == (round == 0), "only a new feed is written")
            _ = try test.feed(server.source, policy: Self.policy, store: store)
            #expect(try !writes.feedsWrittenSinceLastAsked(), "round \(round): opening the feed wrote its row")
        }
    }

    @Test func anotherStoreOpeningTheFeedLeavesThisFeedsNextChangeExact() async throws {
        let server = ModelServer(.posts("p", 12), pageSize: 5)
        let feed = try test.feed(server.source, policy: Self.policy)
        await feed.refresh()
        for round in 0..<12 {
            let other = try test.store()
            _ = try test.feed(server.source, policy: Self.otherPolicy, key: "other", store: other)
            _ = try test.feed(server.source, policy: Self.policy, store: other)
            try await feed.update(Post(id: "p2", revision: round + 1))
            let change = await feed.snapshot.change
            #expect(!change.isFullReload, "round \(round): the other store's open made this feed reload")
            #expect(change.reloadedRows == [IndexPath(section: 0, row: 2)])
        }
    }

    @Test func aPolicyAnOlderVersionRecordedWithItsKeysInAnotherOrderIsOpenedWithoutAWrite() async throws {
        let server = ModelServer(.posts("p", 12), pageSize: 5)
        try await test.feed(server.source, policy: Self.policy).refresh()
        // The keys of the recorded JSON in reverse order, as an encoder without sorted keys may write them.
        let queue = try DatabaseQueue(path: test.path)
        try queue.write { store in
            let recorded = try #require(try store.feed(key: "home")?.policy)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(recorded.utf8)) as? [String: Any])
            let members = try object.keys.sorted(by: >).map { key in
                let value = try JSONSerialization.data(
                    withJSONObject: object[key] ?? NSNull(), options: .fragmentsAllowed)
                return "\"\(key)\":\(String(decoding: value, as: UTF8.self))"
            }
            let reordered = "{\(members.joined(separator: ","))}"
            #expect(reordered != recorded)
            try store.connection.run("UPDATE feed SET policy = ? WHERE key = 'home'", reordered)
        }
        let writes = try FileWrites(test.path)
        for _ in 0..<3 {
            let feed = try test.feed(server.source, policy: Self.policy)
            #expect(await feed.snapshot.ids.count == 5)
            #expect(
                try !writes.feedsWrittenSinceLastAsked(), "opening a feed recorded by an older version wrote its row")
        }
    }
}
