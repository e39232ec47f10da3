public import PagedStore

extension AsyncStream where Element == FeedEvent {
    /// The first event of `kind` from now on; nil when the stream ends first. The suite's time limit
    /// fails a test that waits for one in vain.
    public func first(_ kind: FeedEvent.Kind) async -> FeedEvent? {
        for await event in self where event.kind == kind { return event }
        return nil
    }
}
