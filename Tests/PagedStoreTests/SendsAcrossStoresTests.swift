import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// One send of an edit at a time across the stores on a file, whatever another store's clock says,
/// however late a handler answers, and when the store that sends closes.
@Suite(.limit()) struct SendsAcrossStoresTests {
    let test: FeedTestCase
    let server = ModelServer(.posts("p", 4), pageSize: 10)
    init() throws { test = try FeedTestCase() }

    /// The first queued edit's lease holder, as the file keeps it.
    func leaseHolderOnDisk() throws -> String? {
        try DatabaseQueue(path: test.path).read { try $0.queuedEdits() }.first?.sendingBy
    }

    /// A handler that reports each send's revision on `sent` and answers `outcome` once `release`
    /// lets it go (at once without one).
    static func handler(
        sent: AsyncStream<Int>.Continuation, release: AsyncStream<Void>? = nil, outcome: OutboxOutcome = .confirmed
    ) -> @Sendable (OutboxEdit<Revision>) async -> OutboxOutcome {
        { edit in
            sent.yield(edit.argument.revision)
            if let release { for await _ in release { break } }
            return outcome
        }
    }

    @Test func aStoreThatKnewAnEditWaitsForTheRetryTimeAnotherStoreRecorded() async throws {
        let (first, feed) = try await test.openPosts(server)
        let second = try test.store()
        let secondsBadge = await OutboxStatusLog(second.outbox)
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        // The second store knows the edit before the first one's send fails.
        await secondsBadge.waitFor { $0.edits.first?.attempts == 0 }
        await first.outbox.register("revise", as: Revision.self) { _ in
            .retryable("HTTP 429", retryAfterHeader: "60")
        }
        await secondsBadge.waitFor { $0.edits.first?.attempts == 1 }
        #expect(await second.outbox.status.edits.first?.phase == .retryingLater)

        let (sent, sends) = AsyncStream.makeStream(of: Int.self)
        await second.outbox.register("revise", as: Revision.self, Self.handler(sent: sends))
        #expect(try leaseHolderOnDisk() == nil, "not sent again before the server's time")
        #expect(await second.outbox.status.edits.first?.phase == .retryingLater)
        await second.outbox.resume()
        var arrivals = sent.makeAsyncIterator()
        #expect(await arrivals.next() == 1, "connectivity back: at once")
    }

    @Test func aClockSetBackDoesNotVoidTheLeaseOfAStoreStillSending() async throws {
        // The first store takes the lease; the clock then goes back ten seconds for the second.
        test.clock.advance(by: .seconds(10))
        let (first, feed) = try await test.openPosts(server)
        let (sent, sends) = AsyncStream.makeStream(of: Int.self)
        let (release, released) = AsyncStream.makeStream(of: Void.self)
        defer { released.finish() }
        await first.outbox.register("revise", as: Revision.self, Self.handler(sent: sends, release: release))
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        var arrivals = sent.makeAsyncIterator()
        #expect(await arrivals.next() == 1)
        let holder = try leaseHolderOnDisk()

        let second = try FeedStore(path: test.path, clock: MovableClock().storeClock)
        let secondSends = Locked(0)
        await second.outbox.register("revise", as: Revision.self) { _ in
            secondSends.mutate { $0 += 1 }
            return .confirmed
        }
        #expect(try leaseHolderOnDisk() == holder, "the lease stays the sending store's")
        #expect(await second.outbox.status.edits.first?.phase == .sending)
        released.yield()
        await first.outbox.waitUntilEmpty()
        #expect(secondSends.value == 0)
    }

    @Test func aStoreWhoseSendHungSendsTheItemsNextEditOnceAnotherStoreSettledTheFirst() async throws {
        let (first, feed) = try await test.openPosts(server)
        let (sent, sends) = AsyncStream.makeStream(of: Int.self)
        let (release, released) = AsyncStream.makeStream(of: Void.self)
        defer { released.finish() }
        await first.outbox.register("revise", as: Revision.self) { edit in
            sends.yield(edit.argument.revision)
            if edit.argument.revision == 1 { for await _ in release { break } }
            return .confirmed
        }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        var arrivals = sent.makeAsyncIterator()
        #expect(await arrivals.next() == 1)

        // The hung send outlives its lease: another store sends the edit, and the server confirms it.
        test.clock.advance(by: .seconds(SendLease.longest + 5))
        let second = try test.store()
        await second.outbox.register("revise", as: Revision.self) { _ in .confirmed }
        await second.outbox.waitUntilEmpty()
        second.close()

        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 2)) { $0.revision = 2 }
        let sending = await first.outbox.status.edits.allSatisfy { $0.phase == .sending }
        #expect(sending, "not held behind an edit the file no longer has")
        if sending { #expect(await arrivals.next() == 2) }
    }

    @Test func aLateFailureDoesNotEndTheLeaseOfTheStoreNowSending() async throws {
        let (store, feed) = try await test.openPosts(server)
        let key = try #require(
            try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 })
        store.close()
        // A store's send outlived its lease, and another store took the edit over.
        let (late, sending) = ("1:the late store", "2:the store now sending")
        let queue = try DatabaseQueue(path: test.path)
        let recorded = try queue.write { store in
            let home = try #require(try store.feed(key: "home"))
            try store.setSendLease(of: "p1", key: key, holder: sending, until: Date() + 60, in: home)
            let byTheLateStore = try store.recordFailedSend(
                of: "p1", key: key, by: late, error: "HTTP 503", nextAttemptAt: Date() + 600, in: home)
            let byTheSender = try store.recordFailedSend(
                of: "p1", key: key, by: sending, error: "HTTP 503", nextAttemptAt: Date() + 600, in: home)
            return [byTheLateStore, byTheSender]
        }
        #expect(recorded == [false, true], "only the lease's holder counts its failure and ends the lease")
        let edit = try #require(try queue.read { try $0.queuedEdits() }.first)
        #expect(edit.queued.attempts == 1 && edit.sendingBy == nil)
    }

    @Test func aClosedStoresSendHoldsItsLeaseUntilItsHandlerAnswers() async throws {
        let (first, feed) = try await test.openPosts(server)
        let (sent, sends) = AsyncStream.makeStream(of: Int.self)
        let (release, released) = AsyncStream.makeStream(of: Void.self)
        defer { released.finish() }
        let answered = Locked(false)
        await first.outbox.register("revise", as: Revision.self) { edit in
            sends.yield(edit.argument.revision)
            for await _ in release { break }
            answered.value = true
            return .confirmed
        }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        var arrivals = sent.makeAsyncIterator()
        #expect(await arrivals.next() == 1)
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 2)) { $0.revision = 2 }
        first.close()

        let second = try test.store()
        let secondSent = Locked<[Int]>([])
        let whileTheFirstSent = Locked(false)
        await second.outbox.register("revise", as: Revision.self) { edit in
            if !answered.value { whileTheFirstSent.value = true }
            secondSent.append(edit.argument.revision)
            return .confirmed
        }
        #expect(secondSent.value.isEmpty, "nothing of the item goes while the closed store's send runs")
        released.yield()
        // Its outcome cannot be written (its store is closed): the other store takes the edit over
        // at its next look.
        while await !second.outbox.status.edits.isEmpty {
            test.clock.advance(by: OutboxSchedule.leaseLook)
            await second.outbox.waitFor { $0.edits.first?.phase != .sending || $0.edits.isEmpty }
        }
        #expect(secondSent.value == [1, 2])
        #expect(!whileTheFirstSent.value)
    }
}
