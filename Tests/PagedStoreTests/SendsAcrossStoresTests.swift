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

    /// The lease of the queued edit of `itemID`, as the file keeps it.
    func lease(of itemID: String) throws -> (by: String?, until: Date?)? {
        try DatabaseQueue(path: test.path).read { try $0.queuedEdits() }
            .first { $0.itemID == itemID }.map { ($0.sendingBy, $0.sendingUntil) }
    }

    /// A store whose clock runs `ahead` of the test's, sending p1's edit with a handler that answers
    /// once `release` lets it go.
    /// - Returns: The store, kept open by the caller, and its lease's holder.
    func storeSendingAnEdit(
        clockAhead ahead: Duration, until release: AsyncStream<Void>
    ) async throws -> (FeedStore, holder: String) {
        let clock = MovableClock()
        clock.advance(by: ahead)
        let store = try FeedStore(path: test.path, clock: clock.storeClock)
        let feed = try test.feed(server.source, store: store)
        await feed.refresh()
        let (sent, sends) = AsyncStream.makeStream(of: Int.self)
        await store.outbox.register("revise", as: Revision.self, Self.handler(sent: sends, release: release))
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        var arrivals = sent.makeAsyncIterator()
        #expect(await arrivals.next() == 1)
        return (store, try #require(try lease(of: "p1")?.by))
    }

    /// Another store on the file, whose handler confirms every edit it sends.
    func storeThatConfirms() async throws -> FeedStore {
        let store = try test.store()
        await store.outbox.register("revise", as: Revision.self) { _ in .confirmed }
        return store
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

    /// A store that decided to send an edit on a look from before another store's send of it failed
    /// takes no lease: the edit waits for the time that store wrote, as if it had looked again.
    @Test func aStoreThatLookedBeforeAnotherStoresSendFailedDoesNotSendItAgainAtOnce() async throws {
        let (first, feed) = try await test.openPosts(server)
        let key = try #require(
            try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 })
        await first.outbox.register("revise", as: Revision.self) { _ in
            .retryable("HTTP 429", retryAfterHeader: "60")
        }
        await first.outbox.waitFor { $0.edits.first?.attempts == 1 }
        let second = try test.store()
        let wait = try OutboxWriter(store: second.writer).takeSendLease(
            of: "p1", key: key, inFeed: "home", for: "a second store", knowing: 0)
        #expect(
            wait.map { $0 > .seconds(50) } == true,
            "waits for the first store's retry time, not \(String(describing: wait))")
        #expect(try leaseHolderOnDisk() == nil)
        #expect(
            try OutboxWriter(store: second.writer).takeSendLease(
                of: "p1", key: key, inFeed: "home", for: "a second store", knowing: 1) == nil,
            "a store that knows of the failure sends when it is told to (resume)")
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
        let second = try await storeThatConfirms()
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

    @Test func anAnsweredSendOfAClosedStoreIsNotHeldByItsOtherHungSend() async throws {
        let (first, feed) = try await test.openPosts(server)
        let (sent, sends) = AsyncStream.makeStream(of: String.self)
        let (hung, hangs) = AsyncStream.makeStream(of: Void.self)
        let (release, released) = AsyncStream.makeStream(of: Void.self)
        defer {
            hangs.finish()
            released.finish()
        }
        await first.outbox.register("revise", as: Revision.self) { edit in
            sends.yield(edit.itemID)
            if edit.itemID == "p1" {
                for await _ in hung { break }
            } else {
                for await _ in release { break }
            }
            return .confirmed
        }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        try await feed.enqueue("revise", id: "p2", argument: Revision(revision: 1)) { $0.revision = 1 }
        var arrivals = sent.makeAsyncIterator()
        let both = [await arrivals.next(), await arrivals.next()]
        #expect(Set(both.compactMap { $0 }) == ["p1", "p2"])
        let holder = try #require(try lease(of: "p2")?.by)
        first.close()

        // p2's handler answers; its outcome cannot be written (closed): the first store's schedule
        // then waits for a retry of the write.
        let firstStates = await first.outbox.states
        released.yield()
        for await status in firstStates
        where status.edits.first(where: { $0.itemID == "p2" })?.phase == .retryingLater { break }

        let second = try test.store()
        let secondSent = Locked<[String]>([])
        await second.outbox.register("revise", as: Revision.self) { edit in
            secondSent.append(edit.itemID)
            return .confirmed
        }
        // Looks again as its lease look would (a few seconds on, far inside the five minutes).
        test.clock.advance(by: OutboxSchedule.leaseLook)
        _ = await second.outbox.status  // a look, as its lease look makes
        #expect(
            try lease(of: "p2")?.by != holder,
            "p2's handler answered and its store closed: another store takes p2 over, not five minutes later")
        #expect(try lease(of: "p1")?.by == holder, "p1's handler still runs: its lease holds")
    }

    @Test func aLeaseFromBeforeAClockSetBackHoldsNoMoreThanFiveMinutesAcrossRelaunches() async throws {
        // The sending store's clock is a day ahead: its lease, read now, ends a day and five
        // minutes ahead, as after the system clock was set back a day.
        let (release, released) = AsyncStream.makeStream(of: Void.self)
        defer { released.finish() }
        let (sender, holder) = try await storeSendingAnEdit(clockAhead: .seconds(86_400), until: release)

        // A second store sees the lease, lists the edit as sending, and closes four minutes on.
        let second = try await storeThatConfirms()
        #expect(await second.outbox.status.edits.first?.phase == .sending)
        test.clock.advance(by: .seconds(240))
        second.close()

        // Relaunched four minutes later still: eight minutes since a store first saw the lease.
        test.clock.advance(by: .seconds(240))
        let third = try await storeThatConfirms()
        #expect(
            try lease(of: "p1")?.by != holder,
            "five minutes at the latest: the lease, first seen eight minutes ago, no longer holds")
        withExtendedLifetime((sender, third)) {}
    }

    @Test func aClockSetBackAFewMinutesDoesNotStretchAHungSendsLeasePastFiveMinutes() async throws {
        // The sending store took its lease four minutes "later" than the other store's clock says.
        let (release, released) = AsyncStream.makeStream(of: Void.self)
        defer { released.finish() }
        let (sender, holder) = try await storeSendingAnEdit(clockAhead: .seconds(240), until: release)

        let second = try await storeThatConfirms()
        #expect(await second.outbox.status.edits.first?.phase == .sending, "a live store's send is not voided")
        // Five minutes and a second since the lease was taken, and since this store first saw it.
        test.clock.advance(by: .seconds(SendLease.longest + 1))
        _ = await second.outbox.status  // a look, as its lease look makes
        #expect(
            try lease(of: "p1")?.by != holder,
            "the hung send's lease, first seen five minutes ago, no longer holds")
        withExtendedLifetime(sender) {}
    }

    @Test func aLateFailureDoesNotShortenTheRetryAfterTheStoreThatTookTheEditOverWasGiven() async throws {
        let (first, feed) = try await test.openPosts(server)
        let (sent, sends) = AsyncStream.makeStream(of: Int.self)
        let (release, released) = AsyncStream.makeStream(of: Void.self)
        defer { released.finish() }
        await first.outbox.register("revise", as: Revision.self) { edit in
            sends.yield(edit.argument.revision)
            for await _ in release { break }
            return .retryable("HTTP 503", retryAfterHeader: nil)
        }
        try await feed.enqueue("revise", id: "p1", argument: Revision(revision: 1)) { $0.revision = 1 }
        var arrivals = sent.makeAsyncIterator()
        #expect(await arrivals.next() == 1)

        // The send outlives its lease: a second store takes it over; the server says 429, 300 s.
        test.clock.advance(by: .seconds(SendLease.longest + 5))
        let second = try test.store()
        await second.outbox.register("revise", as: Revision.self) { _ in
            .retryable("HTTP 429", retryAfterHeader: "300")
        }
        await second.outbox.waitFor { $0.edits.first?.attempts == 1 }
        let kept = try #require(try DatabaseQueue(path: test.path).read { try $0.queuedEdits() }.first)
        let serversTime = try #require(kept.queued.nextAttemptAt)

        // The late send answers now.
        let firstStates = await first.outbox.states
        released.yield()
        for await status in firstStates where status.edits.first?.phase == .retryingLater { break }
        let edit = try #require(try DatabaseQueue(path: test.path).read { try $0.queuedEdits() }.first)
        #expect(
            edit.queued.nextAttemptAt.map { $0 >= serversTime } == true,
            "the server's Retry-After stands: kept \(String(describing: edit.queued.nextAttemptAt)), server said \(serversTime)"
        )
        #expect(edit.queued.attempts == 1, "one failure of the server counted once, not again by a stale answer")
    }
}
