/// How a feed behaves: when it refreshes, what a refresh does without overlap, and its limits.
public struct FeedPolicy: Sendable, Equatable, Codable {
    /// When opening a feed refreshes it.
    public enum RefreshOnOpen: Sendable, Equatable, Codable {
        /// Always refresh when the feed is opened.
        case always
        /// Refresh when the last refresh is older than this many seconds (or there never was one).
        case whenOlderThan(seconds: Double)
        /// Never refresh by itself: the app calls ``Feed/refresh()``.
        case never
    }

    /// What a refresh does when the new page shares no item with the cached rows.
    public enum GapPolicy: String, Sendable, Equatable, Codable {
        /// Start again from the new page (reported as a full reload).
        case replace
        /// Put the new rows on top and keep the old ones under a gap marker that can be filled later;
        /// also under a page that overlaps the cached rows but ends with items the feed lacks.
        case keepGap
    }

    /// How a refresh asks for what is new.
    public enum RefreshMode: Sendable, Equatable, Codable {
        /// Fetch the first (newest) page and merge it on top by shared ids. Works with every source.
        case firstPage
        /// Ask for what is newer than the cached head (``PageRequest/newerThan(cursor:)`` with the
        /// feed's newest cursor: Mastodon's `min_id`, GitHub's `rel="prev"`), page after page, until
        /// the server answers with nothing newer: only new items are fetched, and the server's own
        /// answer proves the overlap. After `maxPages` pages with more still coming, the refresh
        /// fetches the first page as ``firstPage`` does (the gap policy then decides). A feed with
        /// no rows or no newest cursor refreshes by the first page. In a list whose items keep their
        /// place (``ItemOrder/fixed``, as those two do), an item the feed has that a newer page lists
        /// before new ones moves up with them, but one listed after them is taken for the head again
        /// (a newer cursor that lagged behind it), and the page proves the rows cached above it
        /// deleted. A list whose items move up says so with ``ItemOrder/byActivity``.
        case newerThanHead(maxPages: Int)
    }

    /// How the server orders the list: what a row the feed has, listed again by a page, says.
    public enum ItemOrder: String, Sendable, Equatable, Codable {
        /// Items keep their place once listed (a timeline ordered by posting time, search results):
        /// a page that lists a row the feed has joins the feed there, and what it skipped above that
        /// row is deleted.
        case fixed
        /// Items move to the top when they change (an inbox ordered by each thread's last message,
        /// posts boosted again): a row listed again may have moved up from its place, so that one
        /// row says nothing of the rows around its old place. A refresh's first page whose only row
        /// the feed has is its last shares nothing that proves an overlap (the gap policy decides);
        /// a gap's fill that ends on the first row under the gap leaves the gap under that row, for
        /// the next fill to find what was between; a newer page (``RefreshMode/newerThanHead(maxPages:)``)
        /// puts every item it lists on top, in its order, and proves nothing deleted. Each costs one
        /// more request where a list ordered by ``fixed`` closes at once.
        case byActivity
    }

    /// When opening the feed refreshes it. Default: when older than five minutes.
    public var refreshOnOpen: RefreshOnOpen
    /// What a refresh without overlap does. Default: ``GapPolicy/replace``.
    public var gapPolicy: GapPolicy
    /// How a refresh asks for what is new. Default: ``RefreshMode/firstPage``.
    public var refreshMode: RefreshMode
    /// How the server orders the list. Default: ``ItemOrder/fixed``.
    public var itemOrder: ItemOrder
    /// How many rows below the last row that appeared start the next page. Default 3.
    public var prefetchDistance: Int
    /// How many rows the feed keeps decoded in memory around the rows on screen. Default 300.
    public var windowSize: Int
    /// How many rows the first snapshot decodes: a first screen and some margin, so opening a feed
    /// costs about what decoding its visible rows costs. Default 50; the window grows from there as
    /// rows appear.
    public var firstScreenRows: Int
    /// The most rows the feed keeps on disk; older pages are trimmed after each next page. Nil: no limit.
    public var maxRows: Int?
    /// The oldest a page may be, in seconds; older pages at the bottom are trimmed when the feed opens.
    public var maxAge: Double?

    /// How many next pages in a row may hold only items the feed already has before the feed stops
    /// with ``FeedError/Kind/paginationLoop``. Such pages are progress on page-numbered and offset
    /// APIs, whose pages shift down as new items arrive on top; the limit stops a server that never
    /// moves on. Default 5.
    public var maxPagesWithoutNewItems: Int
    /// How many pages a refresh fetches, by itself, into each gap it made, from the gap's top: a
    /// small gap closes without a "load more" tap (Mastodon's web client fills up to 2 pages of 20).
    /// Default 0: gaps wait for ``Feed/loadGap(_:from:)``.
    public var autoFillGapPages: Int
    /// Whether the reader's place is saved in the cache as they scroll and restored when the feed
    /// opens (the first snapshot's ``FeedSnapshot/anchor`` says where to scroll). Timelines want it;
    /// search results rarely do. Default false.
    public var keepsReadingPosition: Bool
    /// The version of the item model the cached rows were written with. Raise it when a new version
    /// of the app changes the model in a way old rows cannot decode (a new non-optional field, a
    /// renamed one): rows recorded under another version are discarded when the feed opens, in one
    /// transaction with resetting its cursors, and the feed opens as on a first launch. Rows that do
    /// not decode are removed one by one anyway (each costs only its own row); a version spares the
    /// list that removal. Default 0.
    public var cacheVersion: Int

    /// Creates a policy; every parameter has the default described on its property.
    public init(
        refreshOnOpen: RefreshOnOpen = .whenOlderThan(seconds: 300), gapPolicy: GapPolicy = .replace,
        refreshMode: RefreshMode = .firstPage, itemOrder: ItemOrder = .fixed,
        prefetchDistance: Int = 3, windowSize: Int = 300, firstScreenRows: Int = 50, maxRows: Int? = nil,
        maxAge: Double? = nil, maxPagesWithoutNewItems: Int = 5, autoFillGapPages: Int = 0,
        keepsReadingPosition: Bool = false, cacheVersion: Int = 0
    ) {
        self.refreshOnOpen = refreshOnOpen
        self.gapPolicy = gapPolicy
        self.refreshMode = refreshMode
        self.itemOrder = itemOrder
        self.prefetchDistance = prefetchDistance
        self.windowSize = max(windowSize, 1)
        self.firstScreenRows = max(firstScreenRows, 1)
        self.maxRows = maxRows
        self.maxAge = maxAge
        self.maxPagesWithoutNewItems = max(maxPagesWithoutNewItems, 1)
        self.autoFillGapPages = min(max(autoFillGapPages, 0), 100)
        self.keepsReadingPosition = keepsReadingPosition
        self.cacheVersion = cacheVersion
    }

    /// Decodes a policy recorded by any version: a missing field takes its default, so adding a field
    /// never makes an older cache's recorded policy unreadable.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = FeedPolicy()
        self.init(
            refreshOnOpen: try container.decodeIfPresent(RefreshOnOpen.self, forKey: .refreshOnOpen)
                ?? defaults.refreshOnOpen,
            gapPolicy: try container.decodeIfPresent(GapPolicy.self, forKey: .gapPolicy) ?? defaults.gapPolicy,
            refreshMode: try container.decodeIfPresent(RefreshMode.self, forKey: .refreshMode) ?? defaults.refreshMode,
            itemOrder: try container.decodeIfPresent(ItemOrder.self, forKey: .itemOrder) ?? defaults.itemOrder,
            prefetchDistance: try container.decodeIfPresent(Int.self, forKey: .prefetchDistance)
                ?? defaults.prefetchDistance,
            windowSize: try container.decodeIfPresent(Int.self, forKey: .windowSize) ?? defaults.windowSize,
            firstScreenRows: try container.decodeIfPresent(Int.self, forKey: .firstScreenRows)
                ?? defaults.firstScreenRows,
            maxRows: try container.decodeIfPresent(Int.self, forKey: .maxRows),
            maxAge: try container.decodeIfPresent(Double.self, forKey: .maxAge),
            maxPagesWithoutNewItems: try container.decodeIfPresent(Int.self, forKey: .maxPagesWithoutNewItems)
                ?? defaults.maxPagesWithoutNewItems,
            autoFillGapPages: try container.decodeIfPresent(Int.self, forKey: .autoFillGapPages)
                ?? defaults.autoFillGapPages,
            keepsReadingPosition: try container.decodeIfPresent(Bool.self, forKey: .keepsReadingPosition)
                ?? defaults.keepsReadingPosition,
            cacheVersion: try container.decodeIfPresent(Int.self, forKey: .cacheVersion) ?? defaults.cacheVersion)
    }
}
