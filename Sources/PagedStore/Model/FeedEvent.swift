/// A structured record of what a feed did and why: the answer to "why did my list jump?".
public struct FeedEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: String, Sendable, Equatable {
        /// A fetch started.
        case requestStarted
        /// A next-page call joined the fetch already running instead of starting another.
        case joined
        /// A response arrived for a request that a newer refresh superseded; it was dropped unwritten.
        case superseded
        /// A response was written to the cache and emitted.
        case committed
        /// A fetch or its write failed.
        case failed
        /// Rows were edited locally.
        case edited
        /// Pages were trimmed to the feed's limits.
        case trimmed
        /// A pending edit was deleted unsent, and `error` says why: the cache held it in a form that
        /// cannot be applied (a file edited by hand, a faulty writer: no payload, a payload the codec
        /// cannot decode, an unknown kind), its rows left under it while it was made with a closure,
        /// or it was queued on an insert the server rejected. Its row keeps the server's value. A
        /// queued edit dropped by another store or process is reported when the feed follows that
        /// write.
        case pendingEditDropped
        /// Cached rows whose payload the item codec cannot decode (written by an earlier version of
        /// the app's model, or edited in the file) were removed from the cache and left out of the
        /// list; `itemIDs` names them and `error` says why. A page that lists them again writes them
        /// anew. Rows found while the feed opened are reported to the first subscriber.
        case undecodableRowsRemoved
        /// Another writer of the feed (a second `Feed` on its key, another store on the file,
        /// another process such as an app extension or `pagedb`) changed it, and the list took the
        /// exact change from the file's change record; `rowsChanged` counts the rows it touched.
        case followedOtherWriter
        /// Another writer changed the feed in a way the file's change record does not cover (the
        /// list missed more writes than the record keeps, or the writer does not record: `sqlite3`,
        /// an older version of the app) or contradicts (a record edited in the file), and the list
        /// took the feed's rows whole, in one full reload; `rowsChanged` is the feed's row count. It
        /// is the only event of that write: none counts rows from a record the list did not apply.
        case reloadedFromFile
        /// Rows the feed cached before its item type declared ``FeedItem/searchableFields`` were
        /// indexed for search, one batch after the feed started; `rowsChanged` counts the rows
        /// indexed so far. The rows themselves did not change.
        case searchIndexed
    }

    /// What happened.
    public let kind: Kind
    /// The request it concerns (nil for local edits and trims).
    public let request: PageRequest?
    /// The refresh generation the request belonged to.
    public let generation: Int64
    /// Rows inserted, deleted, reloaded or moved.
    public let rowsChanged: Int
    /// From the request's start to this event, for responses.
    public let duration: Duration?
    /// The failure, for ``Kind/failed``; why the edit was dropped, for ``Kind/pendingEditDropped``;
    /// why the rows could not be decoded, for ``Kind/undecodableRowsRemoved``.
    public let error: FeedError?
    /// The items concerned, for ``Kind/undecodableRowsRemoved``; empty otherwise.
    public var itemIDs: [String] = []
    /// Why the list took the feed's rows whole, for ``Kind/reloadedFromFile``: which writes the
    /// change record did not hold, or that it contradicted the rows. Nil for other kinds.
    public var reason: String? = nil
}
