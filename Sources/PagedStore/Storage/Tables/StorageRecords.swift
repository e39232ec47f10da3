package import Foundation

/// A feed's row in the `feed` table: its cursors, counters and state.
package struct FeedRecord: Sendable, Equatable {
    /// The row id, used as `feed_id` in the other tables.
    package var id: Int64
    /// The app's key for the feed.
    package var key: String
    /// The newer-side cursor returned with the top page.
    package var newestCursor: String?
    /// The older-side cursor of the bottom page: where the next page starts.
    package var oldestCursor: String?
    /// Whether the server said there are no older items.
    package var endReached: Bool
    /// How many rows the feed has.
    package var rowCount: Int
    /// The position of the top row, nil while the feed is empty.
    package var topPosition: Int64?
    /// The position of the bottom row, nil while the feed is empty.
    package var bottomPosition: Int64?
    /// When the last first page was committed.
    package var lastRefreshAt: Date?
    /// The last failed fetch's message, cleared by the next success.
    package var lastError: String?
    /// Bumped by every refresh; a response fetched under an older generation is dropped.
    package var generation: Int64
    /// Whether a first page was ever committed (an empty loaded feed is `empty`, not `initialLoading`).
    package var loaded: Bool
    /// Whether any row has a section key.
    package var hasSections: Bool
    /// The app's policy as JSON, recorded for `pagedb show`.
    package var policy: String?
    /// Bumped by every write that saves the row (see ``PageStore/save(_:)``): a `Feed` whose record
    /// has another value knows that someone else wrote the feed, even when only an item changed.
    package var changeCount: Int64 = 0
    /// The name the feed's item type shares its items under (``FeedItem/sharedItemType``), nil when
    /// they are its own: every row written to a feed with one is flagged as a copy of a shared item.
    /// Written only by ``PageStore/setSharedType(_:of:)``, not by ``PageStore/save(_:)``.
    package var sharedType: String? = nil
    /// The item type's searchable fields (``FeedItem/searchableFields``) as the file records them, a
    /// JSON array of paths; nil when the feed is not searchable. Written only by
    /// ``PageStore/setSearchFields(_:of:)``, not by ``PageStore/save(_:)``.
    package var searchFields: String? = nil
    /// The position from which the feed's rows still wait to be indexed (written before the type
    /// declared its fields); nil when every row is.
    package var searchBacklog: Int64? = nil
}

/// What a stored page was asked for.
package enum PageRequestKind: String, Sendable, Codable {
    /// The newest page (a refresh, or the first fetch).
    case first
    /// The page older than a cursor (next page, or filling a gap).
    case older
    /// The page newer than a cursor.
    case newer
    /// Written by `pagedb seed`, not by a fetch.
    case seed
    /// Holds rows the app inserted locally into a feed that had no page.
    case local
}

/// A page's row in the `page` table: one server response in the cursor chain.
package struct PageRecord: Sendable, Equatable {
    /// The page's place in display order; pages added on top get smaller numbers.
    package var pageNo: Int64
    /// What the page was asked for.
    package var request: PageRequestKind
    /// The cursor it was asked with.
    package var requestCursor: String?
    /// The older-side cursor the server returned.
    package var olderCursor: String?
    /// The newer-side cursor the server returned.
    package var newerCursor: String?
    /// When it was fetched.
    package var fetchedAt: Date
    /// How many rows of the feed belong to it now.
    package var rowCount: Int
}

/// A gap marker: items the feed knows it is missing at one place in its order.
package struct GapRecord: Sendable, Equatable {
    /// The gap's identity, kept while rows around it change.
    package var id: Int64
    /// The gap's place: it sits right below every row whose position is at most this one (usually
    /// the row above it; that row may have been removed since).
    package var abovePosition: Int64
    /// The older-side cursor that fills the gap from its top.
    package var cursor: String?
    /// When the gap was recorded.
    package var createdAt: Date
    /// The newer-side cursor of the rows below the gap, that fills it from its bottom.
    package var newerCursor: String? = nil
    /// The server answered a fill with nothing between the gap's edges: it cannot be filled.
    package var unfillable = false
}

/// An item as stored: its id, place, section and encoded payload.
package struct StoredItem: Sendable, Equatable {
    /// The app's id for the item, as text.
    package var itemID: String
    /// Its sort position in the feed (smaller is nearer the top).
    package var position: Int64
    /// Its section key, if the feed groups rows.
    package var section: String?
    /// The encoded item (JSON text by default).
    package var payload: Data
}

/// An item about to be written: the engine's encoded form of one of the app's items.
package struct EncodedItem: Sendable, Equatable {
    /// The app's id for the item, as text.
    package var itemID: String
    /// Its section key, if any.
    package var section: String?
    /// The encoded item.
    package var payload: Data

    /// Creates an encoded item.
    package init(itemID: String, section: String? = nil, payload: Data) {
        self.itemID = itemID
        self.section = section
        self.payload = payload
    }
}

/// The description of one fetched page, written with its items.
package struct PageWrite: Sendable {
    /// What the page was asked for.
    package var request: PageRequestKind
    /// The cursor it was asked with.
    package var requestCursor: String?
    /// The older-side cursor returned (nil: the feed has ended).
    package var olderCursor: String?
    /// The newer-side cursor returned.
    package var newerCursor: String?
    /// When it was fetched.
    package var fetchedAt: Date

    /// Describes a fetched page.
    package init(
        request: PageRequestKind, requestCursor: String?, olderCursor: String?, newerCursor: String?,
        fetchedAt: Date = Date()
    ) {
        self.request = request
        self.requestCursor = requestCursor
        self.olderCursor = olderCursor
        self.newerCursor = newerCursor
        self.fetchedAt = fetchedAt
    }
}

extension Date {
    /// Milliseconds since 1970, the unit of every time column.
    /// Clamped: a date read from an edited file may lie beyond what an `Int64` of milliseconds holds.
    var millisecondsSince1970: Int64 {
        Int64(exactly: (timeIntervalSince1970 * 1000).rounded())
            ?? (self > Date(timeIntervalSince1970: 0) ? .max : .min)
    }

    /// A date from milliseconds since 1970.
    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
