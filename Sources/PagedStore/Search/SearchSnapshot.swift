/// What a ``SearchList`` shows at one moment: its results, how they differ from the snapshot
/// before, and whether more can be loaded.
public struct SearchSnapshot<Item: Sendable>: Sendable {
    /// The results loaded, in the search's order.
    public let results: [SearchResult<Item>]
    /// How ``results`` differ from the previous snapshot's, in section 0, as a table view's batch
    /// update reads it (see ``FeedChange``); its ``FeedChange/reconfiguredIDs`` are
    /// ``SearchResult/listID``s.
    public let change: FeedChange
    /// Whether ``SearchList/loadMore()`` may find more results below the last one.
    public let hasMore: Bool
    /// Why the last read of the cache failed (a file another process holds locked, a closed store),
    /// nil when it did not: the results are those of the read before, and the next write or
    /// ``SearchList/loadMore()`` reads again.
    public let error: FeedError?
    /// Counts the snapshots of one list, from 0.
    public let sequence: Int
}
