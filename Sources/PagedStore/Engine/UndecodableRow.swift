/// A cached row whose payload the feed's item codec cannot decode: written by an earlier version of
/// the app's model, or edited in the file.
///
/// Such a row costs that row only: it is removed from the cache (a page that lists the item again
/// writes it anew), left out of every count, window and change, and reported once in the events
/// (``FeedEvent/Kind/undecodableRowsRemoved``).
struct UndecodableRow: Sendable, Equatable {
    /// The row's item id.
    var itemID: String
    /// The row's place in the feed's order.
    var position: Int64
    /// Why the codec refused it.
    var error: String
}
