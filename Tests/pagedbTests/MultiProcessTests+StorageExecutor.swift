import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Feeds wait for SQLite on their store's own executor, never on Swift's cooperative threads: while
/// another process holds the write lock, the rest of the app's tasks keep running. Part of the
/// serialized multi-process suite, so that its waiting feeds do not skew the lock-timing test.
extension MultiProcessTests {
    @Test func feedsWaitingForAnotherProcesssLockDoNotStallOtherTasks() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("lock.sqlite")
        let store = try FeedStore(path: db, busyTimeout: .seconds(3))
        let (answered, answer) = AsyncStream.makeStream(of: Void.self)
        let source = ScriptedSource<ModelSource.Row> { _ in
            answer.yield()
            return Page(items: [ModelSource.Row(id: "a"), ModelSource.Row(id: "b")], olderCursor: nil)
        }
        let feeds = try (0..<8).map { index in
            try store.feed("feed\(index)", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        }
        let holder = try await startHolder(db: db, milliseconds: 3500)
        defer {
            holder.terminate()
            holder.waitUntilExit()  // terminated: it ends at once
        }
        // Eight feeds block in SQLite's busy handler (and behind each other) for seconds…
        let refreshes = Task {
            await withTaskGroup(of: Void.self) { group in
                for feed in feeds { group.addTask { await feed.refresh() } }
            }
        }
        // (every feed has its page and goes on to write it)
        var pages = 0
        for await _ in answered {
            pages += 1
            if pages == feeds.count { break }
        }
        // …while a task on the cooperative pool sleeps 100 ms and wakes on time. Where the cooperative pool
        // has a strict width (one thread per core, as on Apple platforms), feeds blocking on it stalled
        // such tasks for as long as the lock was held. Linux's libdispatch adds threads when cooperative
        // ones block, so here the guard holds with or without the executor: it is a regression test for
        // the platforms whose pools are strict.
        let started = ContinuousClock.now
        try await Task.sleep(for: .milliseconds(100))
        let slept = ContinuousClock.now - started
        // Generous for a loaded machine under ThreadSanitizer; a stalled pool would wait out the lock (3.3 s).
        #expect(slept < .milliseconds(2000), "a 100 ms sleep took \(slept) while feeds waited for the lock")
        await refreshes.value
    }
}
