import Foundation
public import PagedStore

/// Records every snapshot a live search emits, in order.
public final class SearchRecorder<Item: FeedItem>: Sendable {
    private let recorded: RecordedStream<SearchSnapshot<Item>>

    /// Starts recording `list`'s snapshots, from its current one.
    public init(_ list: SearchList<Item>) async {
        recorded = RecordedStream(await list.snapshots)
    }

    /// The snapshots so far, once the last of them satisfies `ready` (or the stream ended).
    public func snapshots(
        once ready: @escaping @Sendable (SearchSnapshot<Item>) -> Bool
    ) async -> [SearchSnapshot<Item>] {
        await recorded.elements { $0.last.map(ready) ?? false }
    }
}

/// Records every snapshot a search feed emits, in order.
public final class SearchFeedRecorder<Item: FeedItem>: Sendable {
    private let recorded: RecordedStream<SearchFeedSnapshot<Item>>

    /// Starts recording `search`'s snapshots, from its current one.
    public init(_ search: SearchFeed<Item>) async {
        recorded = RecordedStream(await search.snapshots)
    }

    /// The snapshots so far, once the last of them satisfies `ready` (or the stream ended).
    public func snapshots(
        once ready: @escaping @Sendable (SearchFeedSnapshot<Item>) -> Bool
    ) async -> [SearchFeedSnapshot<Item>] {
        await recorded.elements { $0.last.map(ready) ?? false }
    }
}
