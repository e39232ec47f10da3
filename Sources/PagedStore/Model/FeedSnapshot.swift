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
    /// ``FeedPolicy/GapPolicy/keepGap``); ``Feed/loadGap(_:from:)`` fills one.
    public let gaps: [FeedGap]
    /// How the rows differ from the previous snapshot's.
    public let change: FeedChange
    /// The row to keep still on screen when ``change`` moved it (rows inserted or removed above the
    /// rows the app reported visible), or the row to scroll to when the feed opened at a saved
    /// ``ReadingPosition``; nil otherwise.
    public let anchor: ScrollAnchor?
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

extension SectionLayout {
    init(sections: [FeedSection]) {
        self.init(runs: sections.map { ($0.key, $0.rowCount) })
    }
}

/// Snapshots compare whole (rows, states, sections, gaps, change and sequence), so a test or a view
/// model can check the snapshot it expects.
extension FeedSnapshot: Equatable where Item: Equatable {}
