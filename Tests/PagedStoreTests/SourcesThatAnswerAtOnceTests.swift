import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A source that answers without suspending (a cache, a decoder of a stored response) runs inside
/// the caller's call, before the caller waits: a caller cancelled while it works is still dropped,
/// and a source that calls back into its feed before answering leaves the feed consistent.
@Suite(.limit()) struct SourcesThatAnswerAtOnceTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    @Test func aRefreshWhoseCallerIsCancelledWhileTheSourceAnswersIsDropped() async throws {
        let caller = Locked<Task<Void, Never>?>(nil)
        let source = ScriptedSource<Post> { _ in
            caller.value?.cancel()
            return Page(items: .posts("p", 5), olderCursor: "c1")
        }
        let feed = try test.feed(source)
        let (start, go) = AsyncStream<Void>.makeStream()
        let refreshing = Task {
            for await _ in start { break }
            await feed.refresh()
        }
        caller.value = refreshing
        go.yield()
        await refreshing.value
        #expect(await feed.snapshot.ids.isEmpty, "a cancelled caller's refresh was committed")
        #expect(try test.idsOnDisk().isEmpty)
    }

    /// The cancel comes from elsewhere (the view went away) while the source works without
    /// suspending; ordered by semaphores.
    @Test func aRefreshCancelledFromElsewhereWhileTheSourceWorksIsDropped() async throws {
        let working = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let source = ScriptedSource<Post> { _ in
            working.signal()
            proceed.wait()
            return Page(items: .posts("p", 5), olderCursor: "c1")
        }
        let feed = try test.feed(source)
        let refreshing = Task { await feed.refresh() }
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                working.wait()
                started.resume()
            }
        }
        refreshing.cancel()
        proceed.signal()
        await refreshing.value
        let snapshot = await feed.snapshot
        #expect(snapshot.refresh == .idle)
        #expect(snapshot.ids.isEmpty, "a cancelled caller's refresh was committed")
        #expect(try test.idsOnDisk().isEmpty)
    }

    @Test func aGapFillWhoseCallerIsCancelledWhileTheSourceAnswersIsDropped() async throws {
        let caller = Locked<Task<Void, Never>?>(nil)
        let (feed, _, _) = try await test.timelineWithAGap { request, _ in
            if case .olderThan = request { caller.value?.cancel() }
            return nil
        }
        let gap = try #require(await feed.snapshot.gaps.first)
        let before = await feed.snapshot.ids
        let (start, go) = AsyncStream<Void>.makeStream()
        let filling = Task {
            for await _ in start { break }
            await feed.loadGap(gap)
        }
        caller.value = filling
        go.yield()
        await filling.value
        #expect(await feed.snapshot.ids == before, "a cancelled caller's fill was committed")
    }

    @Test func aNextPageWhoseSourceRefreshesTheFeedFirstCommitsBoth() async throws {
        let box = Locked<Feed<Post>?>(nil)
        let source = ScriptedSource<Post> { request in
            switch request {
            case .first: return Page(items: .posts("p", 5), olderCursor: "c1")
            case .olderThan:
                if let feed = box.value { await feed.refresh() }
                return Page(items: .posts("q", 3), olderCursor: "c2")
            case .newerThan: return Page(items: [], olderCursor: nil)
            }
        }
        let feed = try test.feed(source)
        await feed.refresh()
        box.value = feed
        await feed.loadNextPage()
        await feed.waitUntilIdle()
        let snapshot = await feed.snapshot
        #expect(snapshot.nextPage == .idle && snapshot.refresh == .idle)
        #expect(snapshot.ids == ([Post].posts("p", 5) + .posts("q", 3)).map(\.id))
        #expect(try test.idsOnDisk() == snapshot.ids)
    }

    @Test func aRefreshWhoseSourceStartsAnotherRefreshIsSupersededByIt() async throws {
        let box = Locked<Feed<Post>?>(nil)
        let calls = Locked(0)
        let source = ScriptedSource<Post> { _ in
            if calls.increment() == 1, let feed = box.value {
                await feed.refresh()
                return Page(items: .posts("x", 3), olderCursor: nil)
            }
            return Page(items: .posts("p", 5), olderCursor: "c1")
        }
        let feed = try test.feed(source)
        box.value = feed
        await feed.refresh()
        await feed.waitUntilIdle()
        let snapshot = await feed.snapshot
        #expect(snapshot.refresh == .idle)
        #expect(snapshot.ids == [Post].posts("p", 5).map(\.id), "the superseded answer was committed")
        #expect(try test.idsOnDisk() == snapshot.ids)
    }

    @Test func aSourceThatClosesTheStoreBeforeAnsweringWritesNothing() async throws {
        let store = Locked<FeedStore?>(nil)
        let source = ScriptedSource<Post> { _ in
            store.value?.close()
            return Page(items: .posts("p", 5), olderCursor: "c1")
        }
        let opened = try test.store()
        let feed = try test.feed(source, store: opened)
        store.value = opened
        await feed.refresh()
        let snapshot = await feed.snapshot
        #expect(snapshot.refresh == .failed(Feed<Post>.closedError))
        #expect(snapshot.ids.isEmpty)
    }
}
