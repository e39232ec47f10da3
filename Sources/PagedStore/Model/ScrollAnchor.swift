/// The row a list must keep still while rows change above it, so the reader does not lose their place.
///
/// A snapshot carries one when its change moves the first row on screen (rows inserted or removed
/// above it), when it removes that row (the anchor then names the nearest row that stayed, even
/// where that row kept its index), and when the feed opens at a saved ``ReadingPosition`` or is
/// moved to one (then ``rowBefore`` is nil: scroll to ``rowAfter``). In UIKit, apply the batch
/// update, then add the height of the rows above the anchor that appeared to `contentOffset.y`; in
/// SwiftUI, scroll to ``itemID`` with `ScrollViewReader` or `scrollPosition(id:)`.
public struct ScrollAnchor: Sendable, Equatable {
    /// The id of the row to keep still: the first row on screen, as the app last reported it with
    /// ``Feed/setVisibleRows(_:offset:)`` or ``Feed/rowDidAppear(_:)``.
    public let itemID: String
    /// Its row in the previous snapshot; nil when the snapshot jumps to a saved position.
    public let rowBefore: Int?
    /// Its row in this snapshot.
    public let rowAfter: Int
    /// How far the app had scrolled into that row, as it reported it.
    public let offset: Double

    /// Creates an anchor.
    public init(itemID: String, rowBefore: Int?, rowAfter: Int, offset: Double) {
        self.itemID = itemID
        self.rowBefore = rowBefore
        self.rowAfter = rowAfter
        self.offset = offset
    }
}

/// Where the reader is in a feed: the first row on screen and how far into it.
///
/// With ``FeedPolicy/keepsReadingPosition`` it is saved in the cache as the reader scrolls and
/// restored when the feed opens. To share it with a server marker (Mastodon's markers API), read
/// ``Feed/readingPositions`` and send each one; when the server's marker is newer (a `409 Conflict`,
/// or a marker set by another device), call ``Feed/moveReadingPosition(to:offset:)``.
public struct ReadingPosition: Sendable, Equatable {
    /// The id of the first row on screen.
    public let itemID: String
    /// Its row.
    public let row: Int
    /// How far the app had scrolled into that row, in the app's units (points).
    public let offset: Double

    /// Creates a position.
    public init(itemID: String, row: Int, offset: Double) {
        self.itemID = itemID
        self.row = row
        self.offset = offset
    }
}

/// The rows on screen, as the app last reported them.
struct VisibleRows: Sendable, Equatable {
    var first: Int
    var last: Int
    /// The id of the first row, when it was loaded.
    var firstID: String?
    var offset: Double
    /// Whether the app reports whole ranges with ``Feed/setVisibleRows(_:offset:)``; then a single
    /// row that appears does not replace them.
    var reportedAsRange: Bool
}
