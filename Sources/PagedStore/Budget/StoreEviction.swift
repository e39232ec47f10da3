/// What a store did to keep within its ``StoreBudget``: one feed evicted or trimmed, or the file
/// shrunk.
///
/// ```swift
/// for await eviction in store.evictions {
///     logger.info("\(eviction.kind.rawValue) \(eviction.feedKey ?? "file"): \(eviction.rows) rows")
/// }
/// ```
///
/// An open list of a trimmed feed follows the trim as it follows any other writer: its snapshot's
/// change deletes the rows below its window, and its events report
/// ``FeedEvent/Kind/followedOtherWriter``. An open feed is never evicted whole.
public struct StoreEviction: Sendable, Equatable {
    /// What was done.
    public enum Kind: String, Sendable, Equatable {
        /// A feed not opened for longer than the budget's maximum age was emptied.
        case evictedUnopened
        /// A feed was emptied because the file was over its budget and it was opened longest ago.
        case evictedOverBudget
        /// The oldest pages of a large feed were removed because the file was over its budget.
        case trimmed
        /// Free pages were given back to the file system; ``bytes`` is how much the file shrank.
        case shrunk
    }

    /// What was done.
    public let kind: Kind
    /// The feed evicted or trimmed; nil for ``Kind/shrunk``.
    public let feedKey: String?
    /// The rows removed (0 for ``Kind/shrunk``).
    public let rows: Int
    /// About how many bytes the rows took, or how much the file shrank.
    public let bytes: Int64
}
