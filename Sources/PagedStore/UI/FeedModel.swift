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
///         List(model.rows.indices, id: \.self) { row in
///             PostRow(post: model.rows[row])
///                 .onAppear { model.rowDidAppear(row) }
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
    /// The rows of the newest snapshot.
    public private(set) var rows: FeedRows<Item>
    /// What the list shows.
    public private(set) var content: ContentState
    /// What a pull-to-refresh is doing.
    public private(set) var refreshActivity: RefreshActivity
    /// What the bottom of the list is doing.
    public private(set) var nextPageActivity: NextPageActivity
    /// The sections.
    public private(set) var sections: [FeedSection]
    /// The gap markers.
    public private(set) var gaps: [FeedGap]
    /// The change that produced the current rows from the previous ones.
    public private(set) var lastChange: FeedChange
    /// When the newest page was fetched.
    public private(set) var lastRefreshed: Date?

    /// The feed this model shows.
    @ObservationIgnored public let feed: Feed<Item>
    @ObservationIgnored private var following: Task<Void, Never>?
    @ObservationIgnored private var sequence = -1

    /// A model showing `feed`, starting from its current snapshot.
    public init(feed: Feed<Item>, snapshot: FeedSnapshot<Item>) {
        self.feed = feed
        rows = snapshot.rows
        content = snapshot.content
        refreshActivity = snapshot.refresh
        nextPageActivity = snapshot.nextPage
        sections = snapshot.sections
        gaps = snapshot.gaps
        lastChange = snapshot.change
        lastRefreshed = snapshot.lastRefreshed
        sequence = snapshot.sequence
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

    /// Repeats what failed last.
    public func retry() async {
        follow()
        await feed.retry()
        show(await feed.snapshot)
    }

    /// Tells the feed that `row` appeared (prefetch, and the window of loaded rows follows).
    public func rowDidAppear(_ row: Int) {
        follow()
        Task { await feed.rowDidAppear(row) }
    }

    /// Stops following the feed.
    public func stop() {
        following?.cancel()
        following = nil
    }

    /// Takes a snapshot's values (skipping any older than the one shown).
    func show(_ snapshot: FeedSnapshot<Item>) {
        guard snapshot.sequence > sequence else { return }
        sequence = snapshot.sequence
        rows = snapshot.rows
        content = snapshot.content
        refreshActivity = snapshot.refresh
        nextPageActivity = snapshot.nextPage
        sections = snapshot.sections
        gaps = snapshot.gaps
        lastChange = snapshot.change
        lastRefreshed = snapshot.lastRefreshed
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
