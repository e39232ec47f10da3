public import Foundation

/// Everything a list needs at one instant: its rows, states, sections, gaps, and what changed.
public struct FeedSnapshot<Item: Sendable>: Sendable {
    /// The rows (items of the window around the rows on screen are loaded; see ``FeedRows``).
    public let rows: FeedRows<Item>
    /// What the list shows.
    public let content: ContentState
    /// What a pull-to-refresh is doing.
    public let refresh: RefreshActivity
    /// What the bottom of the list is doing.
    public let nextPage: NextPageActivity
    /// The sections: one (key nil) for a feed without section keys.
    public let sections: [FeedSection]
    /// Where rows are known to be missing (a refresh that did not reach the cached rows, with
    /// ``FeedPolicy/GapPolicy/keepGap``); ``Feed/loadGap(_:)`` fills one.
    public let gaps: [FeedGap]
    /// How the rows differ from the previous snapshot's.
    public let change: FeedChange
    /// When the newest page was fetched: the age of the data, to show as "updated 5 min ago".
    public let lastRefreshed: Date?
    /// Counts the snapshots of this feed object: each emitted snapshot is one more than the one before,
    /// so a consumer can tell that it has seen them all.
    public let sequence: Int

    /// Whether a next page is possible (not ended, and nothing is blocking it).
    public var canLoadNextPage: Bool {
        switch nextPage {
        case .idle, .failed: content == .content || content == .empty
        case .loading, .endReached: false
        }
    }

    /// The index path of flat row `row`.
    public func indexPath(ofRow row: Int) -> IndexPath {
        SectionLayout(sections: sections).indexPath(ofRow: row)
    }
}

/// A gap marker: rows the server has between two cached rows that the feed has not fetched yet.
///
/// Show it as a "load more" row below row ``afterRow``; ``Feed/loadGap(_:)`` fills it, and
/// ``state`` says whether that is running or failed.
public struct FeedGap: Sendable, Equatable, Identifiable {
    /// The gap's identity: it stays the same while rows around the gap change.
    public let id: Int64
    /// The row right above the gap (the gap sits between this row and the next); -1 when no row
    /// is above it (the rows above were removed locally).
    public let afterRow: Int
    /// Whether the gap is being filled, or the last fill failed.
    public let state: GapActivity
}

/// What filling one gap is doing.
public enum GapActivity: Sendable, Equatable {
    /// Nothing is loading for this gap.
    case idle
    /// The gap is being filled.
    case loading
    /// The last fill failed; ``Feed/retry()`` or ``Feed/loadGap(_:)`` repeats it.
    case failed(FeedError)
}

extension SectionLayout {
    init(sections: [FeedSection]) {
        self.init(runs: sections.map { ($0.key, $0.rowCount) })
    }
}

/// Snapshots compare whole (rows, states, sections, gaps, change and sequence), so a test or a view
/// model can check the snapshot it expects.
extension FeedSnapshot: Equatable where Item: Equatable {}
