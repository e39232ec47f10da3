import Foundation

/// Where a ``SearchFeed`` lists the matches only the device holds.
public enum LocalMatchPlacement: Sendable, Equatable {
    /// Below the server's results (the default): the server's order first, then what the cache
    /// adds.
    case below
    /// Above the server's results: what the reader has seen first.
    case above
}

/// One row of a ``SearchFeed``: a server result, or a match only the cache holds.
public struct SearchFeedEntry<Item: Sendable>: Sendable {
    /// Where a row comes from.
    public enum Origin: Sendable, Equatable {
        /// The server's search listed it (it may also be cached: the server's order wins).
        case server
        /// Only the cache matched it: the server has not listed it (offline, not yet paged to, or
        /// not found by the server's search).
        case local
    }

    /// The item's id: unique in the list, the id to give a diffable data source.
    public let id: String
    /// The item; nil for a server row outside the server feed's loaded window (show a placeholder:
    /// ``SearchFeed/rowDidAppear(_:)`` loads it).
    public let item: Item?
    /// Whether the server listed it or only the cache holds it.
    public let origin: Origin
    /// The cache's match of the item, for highlighting its text (``SearchResult/highlighted()``):
    /// every local row has one; a server row has one when the cache's loaded results hold it.
    public let match: SearchResult<Item>?
}

/// What a ``SearchFeed`` shows at one moment: the rows of the server's results and the cache's
/// matches in one list, how they differ from the snapshot before, and the server's states.
public struct SearchFeedSnapshot<Item: Sendable>: Sendable {
    /// What the person typed.
    public let query: String
    /// The rows, in section 0: the server's results and the matches only the device holds, placed
    /// as the search feed's ``LocalMatchPlacement`` says.
    public let entries: [SearchFeedEntry<Item>]
    /// How ``entries`` differ from the previous snapshot's, in section 0, as a table view's batch
    /// update reads it; its ``FeedChange/reconfiguredIDs`` are entry ids. A new query is a change
    /// like any other: rows the two queries share stay (reconfigured, their highlights differ).
    public let change: FeedChange
    /// The server's part as its feed shows it: its ``FeedSnapshot/content``,
    /// ``FeedSnapshot/refresh`` (a failed refresh offline, with its error) and
    /// ``FeedSnapshot/nextPage`` are the search's states.
    public let server: FeedSnapshot<Item>
    /// The cache's part: every match loaded, the server's items among them.
    public let local: SearchSnapshot<Item>
    /// Counts the snapshots of one search feed, from 0.
    public let sequence: Int

    /// Whether ``SearchFeed/loadNextPage()`` may find more: the server's next page, or the cache's
    /// next window.
    public var hasMore: Bool { serverHasMore || local.hasMore }

    /// Whether the server's part can load a next page now: one that failed (offline) waits for
    /// ``SearchFeed/retry()``, and the cache's windows go first meanwhile.
    var serverHasMore: Bool {
        if case .failed = server.nextPage { return false }
        return server.canLoadNextPage
    }
}
