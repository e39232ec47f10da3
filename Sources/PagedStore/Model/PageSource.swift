/// What a feed asks its source for.
public enum PageRequest: Sendable, Hashable, CustomStringConvertible {
    /// The newest page: a refresh, or the first fetch of an empty feed.
    case first
    /// The page of items older than (below) the rows this cursor was returned with.
    case olderThan(cursor: String)
    /// The page of items newer than (above) the rows this cursor was returned with.
    case newerThan(cursor: String)

    /// The cursor the request carries, if any.
    public var cursor: String? {
        switch self {
        case .first: nil
        case .olderThan(let cursor), .newerThan(let cursor): cursor
        }
    }

    /// A short form for logs and `pagedb`, without the cursor's value (it may carry a token).
    public var description: String {
        switch self {
        case .first: "first"
        case .olderThan: "olderThan(cursor)"
        case .newerThan: "newerThan(cursor)"
        }
    }
}

/// One response of the server: its items, top first, and the cursors it returned.
public struct Page<Item: Sendable>: Sendable {
    /// The items in display order (top first).
    public var items: [Item]
    /// The cursor for the page below this one, or nil when the server says there is nothing older.
    public var olderCursor: String?
    /// The cursor for the page above this one, if the server returns one.
    public var newerCursor: String?

    /// Creates a page.
    /// - Parameters:
    ///   - items: The items, top first.
    ///   - olderCursor: The older-side cursor; nil means the feed has ended.
    ///   - newerCursor: The newer-side cursor, if any.
    public init(items: [Item], olderCursor: String?, newerCursor: String? = nil) {
        self.items = items
        self.olderCursor = olderCursor
        self.newerCursor = newerCursor
    }
}

/// The app's fetcher: turns a ``PageRequest`` into a ``Page`` from the server.
///
/// ```swift
/// struct TimelineSource: PageSource {
///     func fetch(_ request: PageRequest) async throws -> Page<Post> {
///         let response = try await api.timeline(maxID: request.cursor)
///         return Page(items: response.posts, olderCursor: response.next, newerCursor: response.prev)
///     }
/// }
/// ```
///
/// Throwing is how a fetch fails; the feed turns it into a state (``FeedSnapshot/content``,
/// ``FeedSnapshot/refresh`` or ``FeedSnapshot/nextPage``). Cancellation is cooperative: a fetch
/// whose task is cancelled because a newer refresh superseded it may stop early.
public protocol PageSource<Item>: Sendable {
    /// The items the source returns.
    associatedtype Item: FeedItem

    /// Fetches one page.
    ///
    /// `nonisolated(nonsending)`: the fetch starts on the executor of the feed that asked (its
    /// store's thread), so a source that answers without suspending (a cache, a script) costs no
    /// executor hop there and back; measured on W5, two hops were about a sixth of a refresh. A source
    /// written with a plain `async` `fetch` still conforms and runs on the global executor, as before;
    /// one that does heavy work after its network wait (decoding) should keep it there with `@concurrent`.
    nonisolated(nonsending) func fetch(_ request: PageRequest) async throws -> Page<Item>
}
