import Foundation
public import PagedStore

/// A ``PageSource`` whose answers a test or a SwiftUI preview scripts: the deterministic harness for
/// races, delays and failures.
///
/// Two ways to use it. With a responder, every fetch is answered by a closure (which may sleep to
/// simulate latency):
///
/// ```swift
/// let source = ScriptedSource<Post> { request in
///     try await Task.sleep(for: .milliseconds(300))
///     return Page(items: Post.samples, olderCursor: nil)
/// }
/// ```
///
/// Without one, every fetch waits until the test answers it, in any order it likes:
///
/// ```swift
/// let source = ScriptedSource<Post>()
/// async let first: Void = feed.refresh()
/// async let second: Void = feed.refresh()
/// let a = await source.nextFetch()
/// let b = await source.nextFetch()
/// b.respond(Page(items: newer, olderCursor: "c2"))    // the later request completes first
/// a.respond(Page(items: older, olderCursor: "c1"))    // and this one is dropped
/// ```
public final class ScriptedSource<Item: FeedItem>: PageSource, @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `lock`.
    private let lock = NSLock()
    private let responder: (nonisolated(nonsending) @Sendable (PageRequest) async throws -> Page<Item>)?
    private var waitingFetches: [PendingFetch] = []
    private var fetchWaiters: [CheckedContinuation<PendingFetch, Never>] = []
    private var log: [PageRequest] = []

    /// A fetch that waits for the script to answer it.
    public final class PendingFetch: Sendable {
        /// What the feed asked for.
        public let request: PageRequest
        private let continuation: CheckedContinuation<Page<Item>, any Error>

        init(request: PageRequest, continuation: CheckedContinuation<Page<Item>, any Error>) {
            self.request = request
            self.continuation = continuation
        }

        /// Answers the fetch with a page.
        public func respond(_ page: Page<Item>) { continuation.resume(returning: page) }

        /// Fails the fetch with `error`.
        public func fail(_ error: any Error) { continuation.resume(throwing: error) }
    }

    /// A source whose fetches wait for ``nextFetch()`` and an answer from the script.
    public init() {
        responder = nil
    }

    /// A source that answers every fetch with `responder`.
    public init(responder: nonisolated(nonsending) @escaping @Sendable (PageRequest) async throws -> Page<Item>) {
        self.responder = responder
    }

    /// Every request fetched so far, in order.
    public var requests: [PageRequest] {
        lock.withLock { log }
    }

    /// The next fetch that is waiting for an answer (scripted mode), in the order fetches started.
    public func nextFetch() async -> PendingFetch {
        await withCheckedContinuation { continuation in
            lock.withLock {
                if waitingFetches.isEmpty {
                    fetchWaiters.append(continuation)
                } else {
                    continuation.resume(returning: waitingFetches.removeFirst())
                }
            }
        }
    }

    /// Fetches a page: from the responder, or by waiting for the script. Runs on the caller's executor
    /// (see ``PageSource/fetch(_:)``), so a responder that answers at once costs the feed no hop.
    public nonisolated(nonsending) func fetch(_ request: PageRequest) async throws -> Page<Item> {
        lock.withLock { log.append(request) }
        if let responder { return try await responder(request) }
        return try await withCheckedThrowingContinuation { continuation in
            let pending = PendingFetch(request: request, continuation: continuation)
            lock.withLock {
                if fetchWaiters.isEmpty {
                    waitingFetches.append(pending)
                } else {
                    fetchWaiters.removeFirst().resume(returning: pending)
                }
            }
        }
    }
}
