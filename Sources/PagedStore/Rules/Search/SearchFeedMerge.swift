import Foundation

/// How a search feed joins the server's results and the cache's matches into one list. Pure.
///
/// The list is one section: the server's rows in the server's order, and the matches only the
/// device holds (the cache's results whose item the server did not list) as one run below them, or
/// above them, as ``LocalMatchPlacement`` says. Server order wins where both have an item: a match
/// that the server's page brings leaves the local run and takes the server's place, a move. The
/// list's change is the difference of two joined lists (``SearchResultsChange``), by id, each row's
/// version telling a changed row from one that only moved: a local row's version is its stored
/// bytes, a server row's the count of the changes its feed reported for it, and both carry the
/// query, so that every row a new query keeps is reconfigured (its highlights differ).
enum SearchFeedMerge {
    /// One row of the joined list: its id, its version, and whether it is the server's.
    struct Row: Equatable {
        var id: String
        var version: Data
        var isServer: Bool

        var entry: SearchResultsChange.Entry { SearchResultsChange.Entry(id: id, version: version) }
    }

    /// The server's rows, then the cache's rows the server does not hold, each item once (or the
    /// cache's run first, with ``LocalMatchPlacement/above``).
    static func joined(server: [Row], local: [Row], placement: LocalMatchPlacement) -> [Row] {
        var seen = Set(server.map(\.id))
        let localOnly = local.filter { seen.insert($0.id).inserted }
        return placement == .above ? localOnly + server : server + localOnly
    }

    /// A server row's version under `query`: the count of the changes its feed reported for it.
    static func version(query: String, server changes: Int) -> Data {
        Data(query.utf8) + [0, 1] + Data(String(changes).utf8)
    }

    /// A local row's version under `query`: its stored bytes. A row that moves between the parts
    /// changes version, and is reconfigured (its origin shows).
    static func version(query: String, local payload: Data) -> Data {
        Data(query.utf8) + [0, 2] + payload
    }

    /// The change that turns `old` into `new`, in section 0.
    static func change(from old: [Row], to new: [Row]) -> FeedChange {
        SearchResultsChange.feedChange(SearchResultsChange.between(old.map(\.entry), new.map(\.entry)))
    }

    /// Which part loads more when the reader nears the end: the part on top while it has more, then
    /// the one below. The server's part has more while its feed can load a next page; a server part
    /// that failed (offline) yields to the cache's.
    enum NextWindow: Equatable {
        case server
        case local
        case none
    }

    /// See ``NextWindow``.
    static func nextWindow(serverCanLoad: Bool, localHasMore: Bool, placement: LocalMatchPlacement) -> NextWindow {
        switch placement {
        case .below: serverCanLoad ? .server : localHasMore ? .local : .none
        case .above: localHasMore ? .local : serverCanLoad ? .server : .none
        }
    }

    /// Where flat row `row` of the list is: a server row or a row of the local run, by its offset
    /// in its part.
    enum Place: Equatable {
        case server(Int)
        case local(Int)
    }

    /// How many rows each part of a joined list holds.
    struct Counts: Equatable {
        var server: Int
        var local: Int
    }

    /// See ``Place``; nil past the end.
    static func place(ofRow row: Int, counts: Counts, placement: LocalMatchPlacement) -> Place? {
        guard row >= 0 else { return nil }
        switch placement {
        case .below:
            if row < counts.server { return .server(row) }
            return row - counts.server < counts.local ? .local(row - counts.server) : nil
        case .above:
            if row < counts.local { return .local(row) }
            return row - counts.local < counts.server ? .server(row - counts.local) : nil
        }
    }
}

extension SearchFeedMerge {
    /// Whether `row` appearing should load the cache's next window: when more may match and it is
    /// within `prefetchDistance` rows of the end of the cache's run (the list's end below the
    /// server's rows, whatever part the row is in: a run the server's rows emptied has no row of
    /// its own to appear).
    static func loadsLocalMore(
        afterRow row: Int, counts: Counts, placement: LocalMatchPlacement, hasMore: Bool, prefetchDistance: Int
    ) -> Bool {
        let end = placement == .below ? counts.server + counts.local : counts.local
        let distance = max(prefetchDistance, 1)
        return hasMore && row >= end - distance && row < end + distance
    }
}
