import Foundation

/// The rules of pending optimistic edits after a write: what keeps an edit shown over whatever the
/// server's pages put in its row's place, and where an item goes back between the rows around it.
///
/// Pure: the facts read from the store come in, a step or a row comes out. ``FeedWriter`` reads the
/// facts and carries out the steps in the write's own transaction, so a pending edit is never seen
/// undone, not even after a crash right after a commit.
enum PendingEditReplay {
    /// What a pending edit needs after a write.
    enum Step: Equatable {
        /// Nothing: the row shows the edit.
        case keep
        /// The row got a new server value: the edit's change goes again on top of it, and that value
        /// becomes the edit's base (what a rollback restores).
        case reapply
        /// The write brought back the item the edit removed: it goes again.
        case removeAgain
        /// The write dropped the item the edit inserted: it goes back.
        case putBack
    }

    /// The step for `edit`, given its item's row as the write left it (nil when the feed lacks it).
    static func step(for edit: PendingEditRecord, stored: StoredItem?) -> Step {
        switch (edit.kind, stored, edit.edited) {
        case (.update, let stored?, let shown?) where stored.payload != shown: .reapply
        case (.remove, .some, _): .removeAgain
        case (.insert, nil, .some): .putBack
        default: .keep
        }
    }

    /// Whether an item a write brought back at `position`, while its removal is pending, takes the
    /// rows around it there as the place a rollback restores it to, rather than the rows it was
    /// removed from (their positions; nil for one that is gone or was never named).
    ///
    /// It does when it came back between those rows: the server's list showed it there, with rows
    /// in between that the feed lacked when it was removed (a refresh brought back an item removed
    /// locally). It does not when it came back outside them (a page-numbered list whose next page
    /// starts with it after items came on top): its place in the server's order is still between
    /// them, unless a page `placeDisproved`, listing both rows without the item between them
    /// (``DeletionProof/Plan/displaced``): the item moved. With both gone, the new place is the
    /// only one known. Rows that now stand the other way round (a page moved the row below above
    /// the other: a post bumped to the top) say nothing of the place but what the row above does,
    /// as in ``rowBetween(aboveRow:belowRow:serverRow:named:)``: kept, that place would put the
    /// item back under the row above and below a gap the page hung under the item.
    static func takesNewPlace(
        cameBackAt position: Int64, removedBetween above: Int64?, and below: Int64?, placeDisproved: Bool
    ) -> Bool {
        if placeDisproved { return true }
        if let above, position < above { return false }
        if let below, position > below, above.map({ $0 < below }) ?? true { return false }
        return true
    }

    /// Whether the list's first page (a refresh's), listing `item`, proves wrong the place its
    /// pending removal named: it lists both rows, `above` and `below`, and the item not between
    /// them (it moved). The first page starts at the list's head, so an item removed from the top
    /// (no row `above`) had its place there: listed below the row that was below it, it moved down.
    /// A page that lists only one of the rows says nothing (a page-numbered list shifted by items on
    /// top).
    static func placeDisproved(byFirstPage listed: [String], item: String, above: String?, below: String?) -> Bool {
        let top: Int? = if let above { listed.firstIndex(of: above) } else { -1 }
        guard let top, let below, let bottom = listed.firstIndex(of: below), let offset = listed.firstIndex(of: item)
        else { return false }
        return !(top < offset && offset < bottom)
    }

    /// The rows of the head a refresh's first page rewrites whose places are lost to the pending
    /// removals that name them as the row below their items: the page starts at the list's head and
    /// lists such a row without the item, so the item no longer stands right above it (a post bumped
    /// to the top from right under the item). Those removals then name the rows around the place
    /// the row left (``PageStore/handOnPlace(of:above:below:in:)``). Named by the row, a rejected
    /// item went back right above it, on top of the page's rows, and the next pages, listing
    /// those rows without it, proved it deleted.
    /// - Parameters:
    ///   - rewritten: The ids of the head's rows the page rewrites, top first.
    ///   - listed: The ids the page lists.
    ///   - removedPlaces: The rows each pending removal named around its item, by item id.
    static func rowsLeavingTheirPlaces(
        rewritten: [String], listed: Set<String>, removedPlaces: [String: (above: String?, below: String?)]
    ) -> [String] {
        let namedBelowUnlisted = Set(
            removedPlaces.compactMap { item, place in listed.contains(item) ? nil : place.below })
        return rewritten.filter { listed.contains($0) && namedBelowUnlisted.contains($0) }
    }

    /// A waiting removal of an item whose row stood over a gap (at or above its place), as a fill
    /// of that gap reads it.
    struct RemovalOverAGap: Equatable {
        /// The removed item.
        var itemID: String
        /// The item the removal names as the row below its own; nil for the list's end.
        var below: String?
        /// Whether that item stands under the rows the fill wrote: a row below the last of them, or
        /// an item whose removal waits with its row's place under the gap.
        var belowStandsUnderTheFill: Bool
    }

    /// The removals over a gap that now name `firstWritten`, the first row a fill wrote under it, as
    /// the row below: those naming the list's end, an item standing under the fill's rows, or an
    /// item the page lists after `firstWritten`. The fill lists what comes after the gap's cursor,
    /// which is after their items; named by a row on the gap's far side, a rejected removal would
    /// go back right above that row, under the fill's rows, out of order for good, since the page
    /// that listed it there has passed. Not those whose item the page lists: the page gave them a
    /// place of their own.
    /// - Parameter page: The ids the fill's page lists, in its order.
    static func handedOnOverAGap(
        _ removals: [RemovalOverAGap], to firstWritten: String, listing page: [String]
    ) -> [String] {
        guard !removals.isEmpty else { return [] }
        let listed = Set(page)
        let listedAfterFirst = Set(page.drop { $0 != firstWritten }.dropFirst())
        return removals.filter { removal in
            guard !listed.contains(removal.itemID) else { return false }
            guard let below = removal.below else { return true }
            return removal.belowStandsUnderTheFill || listedAfterFirst.contains(below)
        }.map(\.itemID)
    }

    /// A side of the place an edit names: the row above it or the row below it.
    enum Side {
        case above, below
    }

    /// The row that stands for the neighbour an edit named on `side`: the named row while the feed
    /// has it; for one whose own removal is pending, the row that removal named on the same side,
    /// and so on; nil when the chain ends at a row that is gone (the list was replaced).
    ///
    /// Removals next to each other name each other's rows: a rejected one goes back next to the
    /// closest row still shown on each side instead of waiting for a page because its neighbours
    /// were removed too.
    /// - Parameters:
    ///   - rows: The ids among the chain's that the feed has rows for.
    ///   - removedPlaces: The rows each pending removal named around its item, by item id.
    static func standIn(
        for named: String?, on side: Side, rows: Set<String>,
        removedPlaces: [String: (above: String?, below: String?)]
    ) -> String? {
        if case .row(let id) = chainEnd(from: named, on: side, rows: rows, removedPlaces: removedPlaces) { return id }
        return nil
    }

    /// Whether the neighbour an edit named on `side` stands for the list's end: none was named (the
    /// item was the first or last row), or the chain of pending removals from it ends at one that
    /// named no row on that side. The rows are not gone then (the list was not replaced): every one
    /// of them was removed, and a rollback puts the item back at that end.
    static func standsForTheEnd(
        _ named: String?, on side: Side, rows: Set<String>,
        removedPlaces: [String: (above: String?, below: String?)]
    ) -> Bool {
        chainEnd(from: named, on: side, rows: rows, removedPlaces: removedPlaces) == .listEnd
    }

    /// Where the chain from a named neighbour ends: at a row the feed has, at the list's end (a
    /// removal that named no row on that side, or nothing named), or nowhere (a row that is gone
    /// with no removal pending, or a chain that comes back on itself).
    private enum ChainEnd: Equatable {
        case row(String), listEnd, gone
    }

    /// Follows the pending removals' places from `named` on `side` (see
    /// ``standIn(for:on:rows:removedPlaces:)``).
    private static func chainEnd(
        from named: String?, on side: Side, rows: Set<String>,
        removedPlaces: [String: (above: String?, below: String?)]
    ) -> ChainEnd {
        var current = named
        var visited: Set<String> = []
        while let id = current {
            guard visited.insert(id).inserted else { return .gone }
            if rows.contains(id) { return .row(id) }
            guard let place = removedPlaces[id] else { return .gone }
            current = side == .above ? place.above : place.below
        }
        return .listEnd
    }

    /// Whether a rolled-back removal's row goes back at `removed`, the position it had when it was
    /// removed, rather than where ``rowBetween(aboveRow:belowRow:serverRow:named:)`` puts it: when
    /// it lies below the row standing for the item's neighbour above (`above`; nil: the top), and
    /// the first row at or below it is the one standing for its neighbour below (`below`; nil:
    /// none), so no row holds it. The item then takes the order the rule gives a server row (right above
    /// the row below it, under any row that came in between) and keeps the side of a gap between
    /// them, which the rows around it cannot say: a gap hangs under the row the item was, or under
    /// the rows of a page that the pending removals took away again, the item among them. On the
    /// wrong side, the gap's fill would prove the item deleted or leave it out of order.
    /// - Parameter firstRowFromRemoved: The position of the first row at or below `removed`, nil
    ///   for none.
    static func goesBackAtItsPosition(
        _ removed: Int64?, above: Int64?, below: Int64?, firstRowFromRemoved: Int64?
    ) -> Bool {
        guard let removed, firstRowFromRemoved == below, below.map({ removed < $0 }) ?? true else { return false }
        return above.map { $0 < removed } ?? true
    }

    /// The row that puts an item back between the rows named around it (their rows now, nil for
    /// one that is gone); nil when rows were named and both are gone (the list was replaced, and its
    /// pages bring the item back in order).
    ///
    /// When rows came in between them meanwhile, their order against the item is unknown, and the
    /// kind of row decides. A server row (a removal rolled back) goes right above the row that was
    /// below it: pages come from the top, so a row put too high would be proved deleted by the
    /// first page that ends between them, while one put too low is listed again by the page that
    /// reaches it, in its place. A local row (an insert put back) goes right below the row that was
    /// above it, where the user put it. Rows that now stand the other way round (a page moved the
    /// one below, or the item it stands for, above the other: a post bumped to the top) say
    /// nothing of its place but what the row above does: it goes right below that row, too low
    /// rather than above a page's rows, which the next refresh would prove it deleted under.
    static func rowBetween(
        aboveRow: Int?, belowRow: Int?, serverRow: Bool, named: (above: Bool, below: Bool)
    )
        -> Int?
    {
        switch (aboveRow, belowRow) {
        case (let above?, let below?): serverRow && below > above ? below : above + 1
        case (let above?, nil): above + 1
        case (nil, let below?): below
        case (nil, nil): named.above || named.below ? nil : 0
        }
    }
}
