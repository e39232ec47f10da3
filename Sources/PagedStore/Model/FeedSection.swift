import Foundation

/// One section of a feed: a run of consecutive rows that share a section key.
public struct FeedSection: Sendable, Equatable {
    /// The section key of its rows (nil for a feed without sections).
    public var key: String?
    /// The flat row index of its first row.
    public var firstRow: Int
    /// How many rows it has.
    public var rowCount: Int
}
