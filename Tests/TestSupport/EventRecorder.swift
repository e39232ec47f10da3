import Foundation
public import PagedStore

/// Records every event a feed reports, in order, from the moment it is made.
public final class EventRecorder: Sendable {
    private let recorded: RecordedStream<FeedEvent>
    private let sentBefore: Int

    /// Starts recording `feed`'s events.
    public init<Item: FeedItem>(_ feed: Feed<Item>) async {
        let (stream, sentBefore) = await feed.countedEvents()
        recorded = RecordedStream(stream)
        self.sentBefore = sentBefore
    }

    /// The events so far, once the stream has delivered every event `feed` sent until now.
    public func events<Item: FeedItem>(settlingOn feed: Feed<Item>) async -> [FeedEvent] {
        let count = await feed.eventsSent - sentBefore
        return await recorded.elements { $0.count >= count }
    }
}
