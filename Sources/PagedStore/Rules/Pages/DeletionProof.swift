/// The rule for the rows a server's page proves deleted on the server. Pure: the facts come in, a
/// plan goes out, and ``ProvenDeletions`` reads the facts and carries the plan out.
///
/// A page lists a stretch of the server's list without holes. When a page reaches rows the feed
/// already has (a gap's fill that meets the rows on its far side, a next page that repeats rows
/// above the bottom, a newer page that repeats the head), the cached rows inside that stretch which
/// the page does not list are no longer on the server: the cache must stop showing them.
///
/// Guards keep a server that lies, or whose order changed, from emptying the feed:
/// - a page proves at most as many deletions as it has items (a page of 20 posts skipping 500
///   cached rows is an item that moved, not 500 deletions);
/// - the stretch never crosses another gap, whose rows are still unknown;
/// - known rows out of the feed's order (an item that moved, a server that lies) prove nothing.
///
/// Rows the app inserted (local rows) were never listed by the server, so no page proves them
/// deleted, until a page lists one: the post was published, and it is a server row from then on.
enum DeletionProof {
    /// Which end of a stretch the page is known to be attached to.
    enum End: Sendable {
        /// The page starts right below the stretch's upper edge (a gap filled from its top, a newer
        /// page whose new items go on top).
        case upper
        /// The page ends right above the stretch's lower edge (a gap filled from its bottom, a next
        /// page that continues below the bottom row).
        case lower
    }

    /// A row of the stretch, as the cache has it.
    struct Row: Sendable, Equatable {
        var itemID: String
        var position: Int64
        /// Whether the app inserted it (never listed by the server yet).
        var local: Bool
    }

    /// A pending optimistic removal, with the places of the rows it was removed from (nil when the
    /// feed no longer has that row).
    struct PendingRemoval: Sendable, Equatable {
        var itemID: String
        var above: (id: String, position: Int64?)?
        var below: (id: String, position: Int64?)?
        /// Whether it was queued by kind for the outbox to send, rather than made with a closure.
        var queued = false
        /// Whether its place is lost (a page replaced the list it named rows of): no page proves
        /// anything of it, and one that lists the item between two rows the feed has gives it its
        /// place (``Plan/movedTo``).
        var placeLost = false

        static func == (lhs: PendingRemoval, rhs: PendingRemoval) -> Bool {
            lhs.itemID == rhs.itemID && lhs.above?.id == rhs.above?.id && lhs.above?.position == rhs.above?.position
                && lhs.below?.id == rhs.below?.id && lhs.below?.position == rhs.below?.position
                && lhs.queued == rhs.queued && lhs.placeLost == rhs.placeLost
        }
    }

    /// What a page proves.
    struct Plan: Sendable, Equatable {
        /// Server rows the page skipped: deleted on the server.
        var deleted: [Row] = []
        /// Positions of local rows the page lists: published, server rows from now on.
        var published: [Int64] = []
        /// Pending removals made with a closure that the page settles: it lists both rows the item
        /// was removed from, and not the item (the server deleted it too), so a rollback of the
        /// running call must not bring it back. A queued removal is never settled by a page: it is
        /// the user's intent for the server, which has not had it yet, and the page only says the
        /// server's list no longer has the item there (it may have moved). It stays queued, keeps
        /// the item hidden wherever a page lists it, and is sent; its place is proved wrong
        /// (``displaced``).
        var settled: [String] = []
        /// Pending removals whose place the page proves wrong: it lists both rows the item was
        /// removed from and does not list the item between them (the item moved, or a queued
        /// removal's item was deleted on the server). They keep it, the best place known for a
        /// rollback to show the item again, but an item that comes back takes its new place
        /// (``PendingEditReplay/takesNewPlace(cameBackAt:removedBetween:and:placeDisproved:)``).
        var displaced: [String] = []
        /// Of the displaced removals, those whose item the page lists between two rows the feed has
        /// and keeps: the item's place in the server's list, which they name from now on, by item
        /// id (a page may list an item it does not write: a gap's fill writes only the items on its
        /// near side of the rows it reaches).
        var movedTo: [String: Place] = [:]
    }

    /// The rows an item is listed between.
    struct Place: Sendable, Equatable {
        var above: String
        var below: String
    }

    /// The positions `after+1...through` that a page's known rows say it covers, before other gaps
    /// cut them; nil when they prove nothing (no known row, or known rows out of the feed's order).
    ///
    /// Attached at the ``End/upper`` edge, the stretch runs from the edge, or from the last of the
    /// rows above it that the page lists first, down to the last known row below the edge (or the
    /// edge): a page that goes on from rows it repeats says nothing lies between them and its next
    /// item; one that ends on them says nothing. Attached at the ``End/lower`` edge, it runs from
    /// the first known row down to the edge when items follow the last known row, and only down to
    /// that row when the page ends there: a page that ends on known rows (a server's newest page
    /// answered instead of the one asked for) says nothing of what lies between them and the edge.
    /// - Parameters:
    ///   - known: The page offsets and positions of the page's items that the feed has, in page order.
    ///   - itemCount: How many items the page has.
    static func stretch(
        known: [(offset: Int, position: Int64)], itemCount: Int, attachedAt end: End, edge: Int64
    ) -> (after: Int64, through: Int64)? {
        guard let first = known.first, let last = known.last,
            zip(known, known.dropFirst()).allSatisfy({ $0.position < $1.position })
        else { return nil }
        switch end {
        case .upper:
            let repeated = known.prefix { $0.position <= edge }.last
            // A page that ends on rows it repeats says nothing of what follows them.
            if let repeated, repeated.offset == itemCount - 1 { return nil }
            return (repeated?.position ?? edge, max(last.position, edge))
        case .lower:
            let reachesTheEdge = last.offset < itemCount - 1
            return (first.position, reachesTheEdge ? edge : last.position)
        }
    }

    /// The stretch cut at the other gaps inside it (`gaps` are their places): rows beyond such a gap
    /// stay, since the page says nothing about them. The gap at `edge` is the page's own and cuts
    /// nothing. Nil when nothing is left.
    static func cut(
        _ stretch: (after: Int64, through: Int64), atGaps gaps: [Int64], attachedAt end: End, filling edge: Int64
    ) -> (after: Int64, through: Int64)? {
        var (upper, lower) = stretch
        let cuts = gaps.filter { $0 > upper && $0 < lower && $0 != edge }
        switch end {
        case .upper: lower = cuts.min() ?? lower
        case .lower: upper = cuts.max() ?? upper
        }
        return upper < lower ? (upper, lower) : nil
    }

    /// The most deletions a page of `itemCount` items proves: more rows missing than that is an item
    /// that moved (a page of 20 posts skipping 500 cached rows), not that many deletions.
    static func mostDeletions(provedByPageOf itemCount: Int) -> Int { itemCount }

    /// The most rows a stretch may hold for a page with `listed` ids that may prove `limit`
    /// deletions: its rows, its local rows and some slack. A longer one is not a stretch the page
    /// listed (an item that moved far).
    static func longestStretch(listed: Int, limit: Int) -> Int {
        listed + limit + 64
    }

    /// What a page listing `page` (its ids, in its order) proves about the stretch's `rows` (top
    /// first, at most ``longestStretch(listed:limit:)`` of them), and about the feed's pending
    /// `removals`: no deletion when nothing is missing or more is missing than the page can prove
    /// (at most `limit`). Local rows the page lists are published, and removals it proves out of
    /// place are displaced, whatever else it proves.
    static func plan(
        rows: [Row], in stretch: (after: Int64, through: Int64), listed page: [String], limit: Int,
        removals: [PendingRemoval]
    ) -> Plan {
        var offsets: [String: Int] = [:]
        for (offset, id) in page.enumerated() where offsets[id] == nil { offsets[id] = offset }
        var plan = Plan()
        plan.published = rows.filter { $0.local && offsets[$0.itemID] != nil }.map(\.position)
        guard limit > 0 else { return plan }
        var settled: [String] = []
        for removal in removals {
            if removal.placeLost {
                if offsets[removal.itemID] != nil { plan.displaced.append(removal.itemID) }
                continue
            }
            guard case .disproved(let listedElsewhere) = placeProof(of: removal, in: stretch, offsets: offsets) else {
                continue
            }
            if listedElsewhere || removal.queued {
                plan.displaced.append(removal.itemID)
            } else {
                settled.append(removal.itemID)
            }
        }
        let listedRows = Set(rows.lazy.filter { offsets[$0.itemID] != nil }.map(\.itemID))
        let removed = Set(removals.map(\.itemID))
        for itemID in plan.displaced {
            guard let offset = offsets[itemID],
                let above = neighbour(listedAt: offset, step: -1, in: page, rows: listedRows, removed: removed),
                let below = neighbour(listedAt: offset, step: 1, in: page, rows: listedRows, removed: removed)
            else { continue }
            plan.movedTo[itemID] = Place(above: above, below: below)
        }
        let missing = rows.filter { !$0.local && offsets[$0.itemID] == nil }
        guard !missing.isEmpty || !settled.isEmpty, missing.count + settled.count <= limit else { return plan }
        plan.deleted = missing
        plan.settled = settled
        return plan
    }

    /// The item the page lists next to the one at `offset` (above it for a `step` of -1, below for
    /// 1), when the feed has a row for it or it is another pending removal's item with such a row
    /// further on that side: removals next to each other name each other, and a rollback reads each
    /// through the others' places to the closest row (``PendingEditReplay/standIn(for:on:rows:removedPlaces:)``).
    /// Nil when the page lists nothing there, or an item the feed knows nothing of first.
    private static func neighbour(
        listedAt offset: Int, step: Int, in page: [String], rows: Set<String>, removed: Set<String>
    ) -> String? {
        var index = offset + step
        while page.indices.contains(index) {
            if rows.contains(page[index]) { return page[offset + step] }
            guard removed.contains(page[index]) else { return nil }
            index += step
        }
        return nil
    }

    /// What a page says of the place a pending removal named.
    private enum PlaceProof {
        /// Nothing: it does not list both rows the item was removed from inside its stretch.
        case none
        /// It lists the item between them: the place is right.
        case holds
        /// It lists both rows and not the item between them; `listedElsewhere` when it lists the
        /// item in another place (it moved), not when it does not list it (deleted, or moved away).
        case disproved(listedElsewhere: Bool)
    }

    private static func placeProof(
        of removal: PendingRemoval, in stretch: (after: Int64, through: Int64), offsets: [String: Int]
    ) -> PlaceProof {
        // A removed item's neighbour may be the row the stretch starts below (a repeated row).
        let inStretch = { (position: Int64?) in
            position.map { $0 >= stretch.after && $0 <= stretch.through } ?? false
        }
        guard let above = removal.above, let below = removal.below, let top = offsets[above.id],
            let bottom = offsets[below.id], inStretch(above.position), inStretch(below.position)
        else { return .none }
        guard let item = offsets[removal.itemID] else { return .disproved(listedElsewhere: false) }
        return top < item && item < bottom ? .holds : .disproved(listedElsewhere: true)
    }
}
