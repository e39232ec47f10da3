/// A gap marker: rows the server has between two cached rows that the feed has not fetched yet.
///
/// Show it as a "load more" row below row ``afterRow``; ``Feed/loadGap(_:from:)`` fills it from
/// either end, and ``state`` says whether that is running, failed, or impossible.
public struct FeedGap: Sendable, Equatable, Identifiable {
    /// The gap's identity: it stays the same while rows around it change.
    public let id: Int64
    /// The row right above the gap (the gap sits between this row and the next); -1 when no row
    /// is above it (the rows above were removed locally).
    public let afterRow: Int
    /// Whether the gap is being filled, the last fill failed, or the server cannot fill it.
    public let state: GapActivity
    /// Whether the gap can be filled from its bottom (the server gave the rows below it a newer-side
    /// cursor): ``Feed/loadGap(_:from:)`` with ``GapEnd/bottom`` then inserts right above them.
    public let canFillFromBottom: Bool
}

/// The end of a gap that a fill starts from.
public enum GapEnd: Sendable, Equatable, Codable {
    /// From the rows above it, with their older-side cursor: the new rows appear under the rows
    /// above, as when reading on down.
    case top
    /// From the rows below it, with their newer-side cursor (Mastodon's `min_id`): the new rows
    /// appear right above the rows below, which is where a reader coming back after a long absence
    /// left off.
    case bottom
}

/// What filling one gap is doing.
public enum GapActivity: Sendable, Equatable {
    /// Nothing is loading for this gap.
    case idle
    /// The gap is being filled.
    case loading
    /// The last fill failed; ``Feed/retry()`` or ``Feed/loadGap(_:from:)`` repeats it.
    case failed(FeedError)
    /// The server answered with nothing between the gap's edges: it no longer has those items
    /// (Mastodon keeps a few hundred home posts). Loading it does nothing; show that posts are
    /// missing and let the user dismiss it with ``Feed/dismissGap(_:)``.
    case unfillable
}
