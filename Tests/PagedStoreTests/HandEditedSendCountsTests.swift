import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A queued edit's count of failed sends edited by hand (any integer SQLite holds): no trap, no
/// count below zero, and `resume()` still sends it at once, once.
@Suite(.limit()) struct HandEditedSendCountsTests {
    let test: FeedTestCase
    let server = ModelServer(.posts("p", 4), pageSize: 10)
    init() throws { test = try FeedTestCase() }

    func edit(_ sql: String) throws {
        try DatabaseQueue(path: test.path).write { store in try store.connection.execute(sql) }
    }

    /// Attempts edited by hand to the largest count SQLite holds: a relaunch must not crash.
    @Test func aHugeAttemptsCountDoesNotTrap() async throws {
        let (first, feed) = try await test.openPosts(server)
        let key = try #require(
            try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 })
        first.close()
        try edit("UPDATE pending_edit SET attempts = 9223372036854775807")
        let second = try test.store()
        let sends = SendCounts()
        let (sent, sends2) = AsyncStream.makeStream(of: Int.self)
        await second.outbox.register("revise", as: Revision.self) { edit in
            sends.add(edit.idempotencyKey)
            sends2.yield(edit.attempt)
            return .retryable("x", retryAfterHeader: nil)
        }
        var it = sent.makeAsyncIterator()
        #expect(await it.next() == Int(Int32.max) + 1, "the count read within what sends can count")
        #expect(sends.count(key) == 1)
        withExtendedLifetime(second) {}
    }

    /// A negative attempts count and a next attempt far ahead: resume() sends at once.
    @Test func aNegativeAttemptsAndFarNextAttemptResumeSendsAtOnce() async throws {
        let (first, feed) = try await test.openPosts(server)
        let key = try #require(
            try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 })
        first.close()
        try edit("UPDATE pending_edit SET attempts = -5, next_attempt_at = 9223372036854775807")
        let second = try test.store()
        let sends = SendCounts()
        let (sent, sendsC) = AsyncStream.makeStream(of: Int.self)
        await second.outbox.register("revise", as: Revision.self) { edit in
            sends.add(edit.idempotencyKey)
            sendsC.yield(edit.attempt)
            return .confirmed
        }
        #expect(await second.outbox.status.edits.first?.phase == .retryingLater)
        await second.outbox.resume()
        var it = sent.makeAsyncIterator()
        #expect(await it.next() == 1, "a count below zero is read as none")
        await second.outbox.waitUntilEmpty()
        #expect(sends.count(key) == 1)
    }

    /// The lease's take, asked by a store knowing fewer failures, with a next attempt the file keeps
    /// at the very end of time: the wait it returns must be a usable duration.
    @Test func aRefusedLeaseWithANextAttemptAtTheEndOfTime() async throws {
        let (first, feed) = try await test.openPosts(server)
        let key = try #require(
            try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 })
        first.close()
        try edit("UPDATE pending_edit SET attempts = 3, next_attempt_at = 9223372036854775807")
        let second = try test.store()
        let wait = try OutboxWriter(store: second.writer).takeSendLease(
            of: "p1", key: key, inFeed: "home", for: "x", knowing: 0)
        #expect(wait != nil)
    }
}
