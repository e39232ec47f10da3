public import Foundation
public import Observation

/// A feed for SwiftUI and UIKit: the newest snapshot's rows and states as observable properties on
/// the main actor, and the feed's actions.
///
/// ```swift
/// struct TimelineView: View {
///     @State var model: FeedModel<Post>
///
///     var body: some View {
///         List(model.listRows) { row in
///             switch row.kind {
///             case .item(let post, let index):
///                 PostRow(post: post).onAppear { model.rowDidAppear(index) }
///             case .placeholder(let index):
///                 ProgressView().onAppear { model.rowDidAppear(index) }
///             case .gap(let gap):
///                 Button("Load more") { Task { await model.loadGap(gap) } }
///             }
///         }
///         .refreshable { await model.refresh() }
///         .task { await model.start() }
///     }
/// }
/// ```
///
/// The model shows the newest state; it may skip snapshots that arrive while an action finishes. A
/// UIKit table that applies every batch should read ``Feed/snapshots`` itself, where no change is
/// ever skipped.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class FeedModel<Item: FeedItem> {
    /// The newest snapshot shown: every property below reads it, so observers of any of them are
    /// told when it changes.
    public private(set) var snapshot: FeedSnapshot<Item>

    /// The rows of the newest snapshot (nil for a row outside the loaded window).
    public var rows: FeedRows<Item> { snapshot.rows }
    /// The rows with the gap markers in place, none optional: the data of a `List` or `ForEach`.
    public var listRows: FeedListRows<Item> { FeedListRows(rows: snapshot.rows, gaps: snapshot.gaps) }
    /// What the list shows.
    public var content: ContentState { snapshot.content }
    /// What a pull-to-refresh is doing.
    public var refreshActivity: RefreshActivity { snapshot.refresh }
    /// What the bottom of the list is doing.
    public var nextPageActivity: NextPageActivity { snapshot.nextPage }
    /// The sections.
    public var sections: [FeedSection] { snapshot.sections }
    /// The gap markers.
    public var gaps: [FeedGap] { snapshot.gaps }
    /// The change that produced the current rows from the previous ones.
    public var lastChange: FeedChange { snapshot.change }
    /// The row to keep still (or, on opening at a saved reading position, to scroll to): for
    /// `ScrollViewReader.scrollTo(_:anchor:)` or `scrollPosition(id:)` with ``ScrollAnchor/itemID``.
    public var anchor: ScrollAnchor? { snapshot.anchor }
    /// When the newest page was fetched.
    public var lastRefreshed: Date? { snapshot.lastRefreshed }

    /// The feed this model shows.
    @ObservationIgnored public let feed: Feed<Item>
    @ObservationIgnored private var following: Task<Void, Never>?

    /// A model showing `feed`, starting from its current snapshot.
    public init(feed: Feed<Item>, snapshot: FeedSnapshot<Item>) {
        self.feed = feed
        self.snapshot = snapshot
    }

    /// A model showing `feed`.
    public convenience init(feed: Feed<Item>) async {
        self.init(feed: feed, snapshot: await feed.snapshot)
    }

    /// Follows the feed's snapshots and starts it (refreshing if its policy says so).
    public func start() async {
        follow()
        await feed.start()
        show(await feed.snapshot)
    }

    /// Pull-to-refresh; returns when the refresh is done.
    public func refresh() async {
        follow()
        await feed.refresh()
        show(await feed.snapshot)
    }

    /// Loads the next page; returns when it is done.
    public func loadNextPage() async {
        follow()
        await feed.loadNextPage()
        show(await feed.snapshot)
    }

    /// Fills a gap from `end` (see ``Feed/loadGap(_:from:)``); returns when it is done.
    public func loadGap(_ gap: FeedGap, from end: GapEnd = .top) async {
        follow()
        await feed.loadGap(gap, from: end)
        show(await feed.snapshot)
    }

    /// Repeats what failed last.
    public func retry() async {
        follow()
        await feed.retry()
        show(await feed.snapshot)
    }

    /// Tells the feed that `row` appeared (prefetch, and the window of loaded rows follows). Rows
    /// reach the feed in the order this is called (see ``Feed/enqueueRowDidAppear(_:)``).
    public func rowDidAppear(_ row: Int) {
        follow()
        feed.enqueueRowDidAppear(row)
    }

    /// Stops following the feed.
    public func stop() {
        following?.cancel()
        following = nil
    }

    /// Shows `snapshot`, unless it is older than the one shown.
    func show(_ snapshot: FeedSnapshot<Item>) {
        guard snapshot.sequence > self.snapshot.sequence else { return }
        self.snapshot = snapshot
    }

    private func follow() {
        guard following == nil else { return }
        let feed = self.feed
        following = Task { [weak self] in
            for await snapshot in await feed.snapshots {
                guard let self else { return }
                self.show(snapshot)
            }
        }
    }
}
