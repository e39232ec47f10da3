import Foundation
public import PagedStore

/// Records every snapshot a feed emits, in order.
public final class SnapshotRecorder<Item: FeedItem>: Sendable {
    private let recorded: RecordedStream<FeedSnapshot<Item>>

    /// Starts recording `feed`'s snapshots, from its current one.
    public init(_ feed: Feed<Item>) async {
        recorded = RecordedStream(await feed.snapshots)
    }

    /// The snapshots so far, once the stream has delivered the feed's current one.
    public func snapshots(settlingOn feed: Feed<Item>) async -> [FeedSnapshot<Item>] {
        let sequence = await feed.snapshot.sequence
        return await recorded.elements { ($0.last?.sequence ?? -1) >= sequence }
    }
}
