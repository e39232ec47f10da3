import Foundation

/// Carries out ``GapFillRule`` in the caller's write transaction: reads the facts, asks the rule,
/// proves the deletions the page shows (``ProvenDeletions``), inserts the rows and moves or removes
/// the gap.
enum GapFiller {
    /// What filling a gap did.
    struct Fill: Sendable, Equatable {
        /// The row index of the first inserted row.
        var firstRow: Int
        /// The positions of the inserted rows, top first, and which of the given items each holds.
        var rows: [WrittenRow]
        /// Whether the gap is closed (the page reached the rows on its far side).
        var closed: Bool
        /// Whether the gap stays but cannot be filled: the server has nothing more between its edges.
        var unfillable = false
        /// The rows the page proved deleted on the server, as row indices before the fill, ascending.
        var deletedRows: [Int] = []
    }

    /// Writes a page fetched for the gap `id` from `end`. The rows go right below the gap's place,
    /// above any row inserted locally below it, so they are contiguous rows of the feed; they join
    /// the page of the row above the gap (or the top page).
    /// - Parameter cursor: The cursor the page returned for going on in the same direction.
    /// - Returns: Nil when the gap no longer exists.
    static func fill(
        gap id: Int64, from end: GapEnd, with items: [EncodedItem], cursor: String?, order: FeedPolicy.ItemOrder,
        in feed: inout FeedRecord, store: PageStore
    ) throws -> Fill? {
        guard let gap = try store.gaps(of: feed).first(where: { $0.id == id }) else { return nil }
        let above = gap.abovePosition
        let known = try store.items(withIDs: items.map(\.itemID), in: feed).mapValues(\.position)
        let limit = try store.boundary(below: above, in: feed)
        let listsTheFarSide = end == .top && known.values.contains { $0 > above }
        var facts = GapFillRule.Facts(
            end: end, itemIDs: items.map(\.itemID), known: known, gapPosition: above, cursor: cursor,
            rowsOnFarSide: end == .top ? limit != nil : (feed.topPosition.map { $0 <= above } ?? false),
            farSideRows: listsTheFarSide ? try farSideRows(below: above, pageOf: items.count, in: feed, store) : [],
            order: order)
        if GapFillRule.needsFarSideFacts(facts) {
            facts.hidden = try store.hiddenItemIDs(in: feed)
            facts.farSideBottom = try store.lastPosition(ofRowsBelow: above, in: feed)
            facts.farSideEndsTheList = feed.endReached && facts.farSideBottom == feed.bottomPosition
        }
        let plan = GapFillRule.plan(facts)
        // Rows of items that moved up: their old rows go (row indices before the fill; a deletion
        // the page proves may name one too), then the items go in where the page lists them.
        let movedRows = try plan.moved.compactMap { offset in
            try known[items[offset].itemID].map { try store.rowIndex(ofPosition: $0, in: feed) }
        }
        let deletedRows = try ProvenDeletions.delete(
            skippedBy: items,
            known: plan.proof.compactMap { offset in known[items[offset].itemID].map { (offset, $0) } },
            attachedAt: end == .top ? .upper : .lower, edge: above, in: &feed, store: store)
        for offset in plan.moved { _ = try store.removeMovedItem(items[offset].itemID, from: &feed) }
        let rows = try store.insertRows(plan.fresh.map { items[$0] }, offsets: plan.fresh, below: above, in: &feed)
        if let first = rows.first, let last = rows.last {
            let firstWritten = items[first.offset].itemID
            let over = try store.pendingRemovalsOverAGap(at: above, lastWritten: last.position, in: feed)
            let handedOn = PendingEditReplay.handedOnOverAGap(over, to: firstWritten, listing: items.map(\.itemID))
            try store.namePendingRemovals(of: handedOn, below: firstWritten, in: feed)
        }
        var unfillable = false
        switch plan.gap {
        case .closed:
            try store.removeGap(id: id, in: feed)
        case .becameTheBottom(let next):
            try store.removeGap(id: id, in: feed)
            try store.advanceOlderCursor(to: next, in: &feed)
        case .belowTheNewRows(let next, let cannotFill):
            unfillable = cannotFill
            try store.updateGap(
                id: id, to: rows.last?.position ?? above, cursor: next, newerCursor: gap.newerCursor,
                unfillable: cannotFill, in: feed)
        case .aboveTheNewRows(let next, let cannotFill):
            unfillable = cannotFill
            try store.updateGap(
                id: id, to: above, cursor: gap.cursor, newerCursor: next, unfillable: cannotFill, in: feed)
        }
        // The gap changed even when no row did: the save counts it for every other `Feed`.
        try store.save(&feed)
        return Fill(
            firstRow: try store.rowCount(throughPosition: above, in: feed), rows: rows,
            closed: plan.gap.closes,
            unfillable: unfillable, deletedRows: Set(deletedRows + movedRows).sorted())
    }

    /// The rows right below the gap's place that ``GapFillRule`` judges a page against.
    private static func farSideRows(
        below above: Int64, pageOf itemCount: Int, in feed: FeedRecord, _ store: PageStore
    ) throws -> [DeletionProof.Row] {
        let limit = GapFillRule.farSideRowsNeeded(pageOf: itemCount)
        return try store.rows(after: above, through: Int64.max, limit: limit, in: feed).map {
            DeletionProof.Row(itemID: $0.itemID, position: $0.position, local: $0.local)
        }
    }
}
