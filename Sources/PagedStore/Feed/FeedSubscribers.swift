/// Who listens to a feed: the streams of snapshots, events and saved reading positions, the newest
/// snapshot, and the events from before anyone subscribed to events (rows removed while the feed
/// opened).
struct FeedSubscribers<Item: FeedItem> {
    /// The newest snapshot sent.
    private(set) var latest: FeedSnapshot<Item>
    private var snapshots: [Int: AsyncStream<FeedSnapshot<Item>>.Continuation] = [:]
    private var events: [Int: AsyncStream<FeedEvent>.Continuation] = [:]
    private var positions: [Int: AsyncStream<ReadingPosition>.Continuation] = [:]
    private var nextID = 0
    /// Held for the first subscriber of events.
    var undeliveredEvents: [FeedEvent] = []
    /// How many events were sent, to any subscriber: a test that records events waits for all.
    private(set) var eventsSent = 0

    /// Whether anyone listens to events: an event nobody hears is not built.
    var hearEvents: Bool { !events.isEmpty }

    /// Whether anyone follows the snapshots: only then does the feed look for other processes' writes.
    var observed: Bool { !snapshots.isEmpty }

    init(latest: FeedSnapshot<Item>) {
        self.latest = latest
    }

    /// Adds a snapshot stream, which gets the newest snapshot at once.
    mutating func addSnapshots(_ continuation: AsyncStream<FeedSnapshot<Item>>.Continuation) -> Int {
        continuation.yield(latest)
        snapshots[nextID] = continuation
        return takeID()
    }

    /// Adds an event stream; the first one gets the events from before.
    mutating func addEvents(_ continuation: AsyncStream<FeedEvent>.Continuation) -> Int {
        events[nextID] = continuation
        for event in undeliveredEvents { continuation.yield(event) }
        eventsSent &+= undeliveredEvents.count
        undeliveredEvents = []
        return takeID()
    }

    /// Adds a stream of saved reading positions.
    mutating func addPositions(_ continuation: AsyncStream<ReadingPosition>.Continuation) -> Int {
        positions[nextID] = continuation
        return takeID()
    }

    /// Removes the stream with `id`, whichever kind it is.
    mutating func remove(_ id: Int) {
        snapshots[id] = nil
        events[id] = nil
        positions[id] = nil
    }

    /// Sends `snapshot` to every snapshot stream; it becomes the newest.
    mutating func send(_ snapshot: FeedSnapshot<Item>) {
        latest = snapshot
        for continuation in snapshots.values { continuation.yield(snapshot) }
    }

    mutating func send(_ event: FeedEvent) {
        eventsSent &+= 1
        for continuation in events.values { continuation.yield(event) }
    }

    func send(_ position: ReadingPosition) {
        for continuation in positions.values { continuation.yield(position) }
    }

    /// Ends every stream: a loop over one of them ends with the feed instead of waiting forever.
    mutating func finishAll() {
        for continuation in snapshots.values { continuation.finish() }
        for continuation in events.values { continuation.finish() }
        for continuation in positions.values { continuation.finish() }
        (snapshots, events, positions) = ([:], [:], [:])
    }

    private mutating func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }
}
