import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A feed that nobody holds any more ends its streams: a loop over its snapshots, events or saved
/// reading positions that outlives the feed ends instead of waiting forever. A loop that does not end
/// runs into the suite's time limit, which stops it.
@Suite(.limit()) struct ReleasedFeedTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    /// Which of the feed's streams a loop iterates.
    enum Stream: String, CaseIterable, CustomTestStringConvertible {
        case snapshots
        case events
        case readingPositions

        var testDescription: String { rawValue }

        /// A loop over this stream of `feed` that counts what it got, and ends when the stream does
        /// (nil when it was stopped instead).
        func loop(over feed: Feed<Post>) async -> Task<Int?, Never> {
            switch self {
            case .snapshots: Self.counting(await feed.snapshots)
            case .events: Self.counting(await feed.events)
            case .readingPositions: Self.counting(await feed.readingPositions)
            }
        }

        private static func counting<Element: Sendable>(_ stream: AsyncStream<Element>) -> Task<Int?, Never> {
            Task {
                var count = 0
                for await _ in stream { count += 1 }
                return Task.isCancelled ? nil : count
            }
        }
    }

    /// How many elements `loop` counted once its stream ended; nil when the test was stopped first
    /// (its time limit), which stops the loop too.
    func end(of loop: Task<Int?, Never>) async -> Int? {
        await withTaskCancellationHandler {
            await loop.value
        } onCancel: {
            loop.cancel()
        }
    }

    @Test(arguments: Stream.allCases)
    func aLoopOverAReleasedFeedsStreamEnds(_ stream: Stream) async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        var feed: Feed<Post>? = try test.feed(server.source)
        let loop = try await stream.loop(over: #require(feed))
        // The feed works while held: a refresh, observed by the loop.
        await feed?.refresh()
        feed = nil
        #expect(await end(of: loop) != nil)
    }

    @Test func aLoopOverTheSnapshotsOfAReleasedFeedGotEverySnapshotBeforeItEnded() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        var feed: Feed<Post>? = try test.feed(server.source)
        let loop = try await Stream.snapshots.loop(over: #require(feed))
        await feed?.refresh()
        let sent = try #require(await feed?.snapshot.sequence) + 1
        feed = nil
        #expect(await end(of: loop) == sent)
    }
}
