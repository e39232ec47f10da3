/// The rule for a page fetched for a gap: which of its items go in, whether it closes the gap, and
/// what the gap becomes. Pure: ``GapFiller`` reads the facts and carries the plan out.
///
/// A gap is filled from its top (the page is older than the rows above, asked with their older
/// cursor) or from its bottom (newer than the rows below, asked with their newer cursor). The page's
/// items go right below the gap's place, up to the first item the feed already has on the far side:
/// the proof that the page reached those rows, which closes the gap. Ids the feed has on the near
/// side are no proof (a page-numbered list shifts down as items arrive on top, so its pages repeat
/// rows): they are dropped, and the page goes on; those it lists first, from the top, still say what
/// the page goes on from (see ``DeletionProof``).
///
/// A page from the top whose last row of the far side lies further below the far side's top than
/// the page could prove deleted (``DeletionProof/mostDeletions(provedByPageOf:)``), with no row of
/// the far side after it, did not reach the far side: the item moved up (a post bumped to the top,
/// then buried by newer posts) and the page ends on it. It moves up to where the page lists it, and
/// the gap stays below it, for the next fill to reach the far side's top.
enum GapFillRule {
    /// What the store knows when the page arrives.
    struct Facts {
        /// The end the page was fetched for.
        var end: GapEnd
        /// The page's item ids, in page order.
        var itemIDs: [String]
        /// The positions of the page's items that the feed has.
        var known: [String: Int64]
        /// The gap's place: right below every row at or above it.
        var gapPosition: Int64
        /// The cursor the page returned for going on in the same direction.
        var cursor: String?
        /// Whether the feed has rows on the far side of the gap (below it when filling from the top,
        /// above it when filling from the bottom).
        var rowsOnFarSide: Bool
        /// Filling from the top, the rows right below the gap, top first, as many as
        /// ``farSideRowsNeeded(pageOf:)`` says; empty from the bottom.
        var farSideRows: [DeletionProof.Row] = []
        /// How the server orders the list.
        var order: FeedPolicy.ItemOrder = .fixed
        /// The items whose removals wait, which the feed hides: listed, they are neither rows nor
        /// items it lacks. Read only when ``needsFarSideFacts(_:)`` says so.
        var hidden: Set<String> = []
        /// The position of the far side's last row, above the next gap or at the feed's bottom.
        /// Read only when ``needsFarSideFacts(_:)`` says so.
        var farSideBottom: Int64?
        /// Whether the far side's last row is the list's last: no gap under it, and the feed's next
        /// page found the list's end. Read only when ``needsFarSideFacts(_:)`` says so.
        var farSideEndsTheList = false
    }

    /// What becomes of the gap.
    enum Gap: Equatable {
        /// The page reached the far side, or the server gave all it has: the gap goes.
        case closed
        /// Filled from the top with no rows below the gap (the rows that were there are gone): the
        /// gap goes, and the feed's next page continues from the page's older cursor, as below any
        /// bottom row.
        case becameTheBottom(cursor: String?)
        /// Filled from the top: the gap moves below the new rows, with the page's older cursor.
        case belowTheNewRows(cursor: String?, unfillable: Bool)
        /// Filled from the bottom: the gap stays above the new rows, with the page's newer cursor.
        case aboveTheNewRows(newerCursor: String?, unfillable: Bool)

        /// Whether the gap goes.
        var closes: Bool {
            switch self {
            case .closed, .becameTheBottom: true
            case .belowTheNewRows, .aboveTheNewRows: false
            }
        }
    }

    /// What to write.
    struct Plan: Equatable {
        /// The page offsets of the items to insert below the gap's place, in order (`moved` among them).
        var fresh: [Int]
        /// The page offsets of items the feed has at an older place, on the far side of the gap: a
        /// bottom fill lists them above the gap's bottom edge, a top fill before the far side's edge.
        /// The item moved up (a post bumped to the top, then buried by newer posts): its old row
        /// goes, and it is inserted where the page lists it.
        var moved: [Int] = []
        /// The page's known rows that prove deletions (see ``DeletionProof/stretch(known:itemCount:attachedAt:edge:)``),
        /// in page order: those it reached on the far side, and, from the top, those it lists first
        /// on the near side.
        var proof: [Int]
        var gap: Gap
    }

    /// Plans the fill of a gap with a page.
    static func plan(_ facts: Facts) -> Plan {
        let items = facts.itemIDs
        let fromTop = facts.end == .top
        func isFar(_ offset: Int) -> Bool {
            guard let position = facts.known[items[offset]] else { return false }
            return fromTop ? position > facts.gapPosition : position <= facts.gapPosition
        }
        let far = items.indices.filter(isFar)
        let repeated =
            fromTop
            ? Array(items.indices.prefix { facts.known[items[$0]].map { $0 <= facts.gapPosition } ?? false }) : []
        let reached =
            fromTop
            ? firstInCachedOrder(far, facts).flatMap { edgeOverTheFarSide($0, far, facts) }.flatMap {
                provesTheEdge($0, far, facts)
            } : far.last
        let candidates = fromTop ? 0..<(reached ?? items.count) : (reached.map { $0 + 1 } ?? 0)..<items.count
        let moved = candidates.filter { offset in facts.known[items[offset]].map { $0 > facts.gapPosition } ?? false }
        let movedSet = Set(moved)
        let fresh = candidates.filter { facts.known[items[$0]] == nil || movedSet.contains($0) }
        // Nothing at all, and nothing further this way, yet rows remain on the far side: the server
        // no longer has what lies between (Mastodon keeps a few hundred home posts). A page with
        // items that ends the list closes the gap: the server gave all it has.
        let reachedFarSide = reached != nil || !facts.rowsOnFarSide
        let unfillable = !reachedFarSide && items.isEmpty && facts.cursor == nil
        let gap: Gap
        if fromTop && !facts.rowsOnFarSide {
            gap = .becameTheBottom(cursor: facts.cursor)
        } else if reachedFarSide || (facts.cursor == nil && !items.isEmpty) {
            gap = .closed
        } else if fromTop {
            gap = .belowTheNewRows(cursor: facts.cursor, unfillable: unfillable)
        } else {
            gap = .aboveTheNewRows(newerCursor: facts.cursor, unfillable: unfillable)
        }
        // A moved row listed before the one reached stays in the proof: out of the cached order, it
        // makes the page prove less, never more. A page that reached nothing proves nothing on the
        // far side: a row it lists there moved, and the rows above that row's old place are not
        // shown deleted by it.
        return Plan(fresh: fresh, moved: moved, proof: repeated + (reached == nil ? [] : far), gap: gap)
    }

    /// How many rows right below a gap a page of `itemCount` items is judged against: enough to
    /// count more unlisted server rows above its last row than it could prove deleted.
    static func farSideRowsNeeded(pageOf itemCount: Int) -> Int {
        DeletionProof.longestStretch(listed: itemCount, limit: DeletionProof.mostDeletions(provedByPageOf: itemCount))
    }

    /// `reached`, unless it is the page's last row of the far side and lies below unlisted server
    /// rows that nothing else on the page says are gone: then nil, the row moved up. That is so
    /// when they are more than the page could prove deleted, and when the page ends on that row
    /// and goes on, with at least as many server rows cached under it as it passed: the page
    /// cannot tell rows deleted above it from the row bumped from under them (its next item would
    /// say), and taking a bump for deletions skips live posts for good. Moved up, the row leaves
    /// the gap below it, and the next fill, which lists the rows under it, reaches them and proves
    /// what was deleted. With fewer rows under it, that fill might list too few to prove them (the
    /// list's end), and the deleted rows would stay: the page proves them, as one that cannot tell
    /// must. In a list ordered by activity (``FeedPolicy/ItemOrder/byActivity``), a page that ends
    /// on the only row of the far side it lists proves nothing of what is under the gap even when
    /// it passed no row: that row may have moved up from above items the feed never had.
    private static func provesTheEdge(_ reached: Int, _ far: [Int], _ facts: Facts) -> Int? {
        guard far.last == reached else { return reached }
        let endsOnIt = reached == facts.itemIDs.count - 1 && facts.cursor != nil
        if facts.order == .byActivity, endsOnIt, far.count == 1 { return nil }
        let listed = Set(facts.itemIDs)
        let reachedID = facts.itemIDs[reached]
        let passed = facts.farSideRows.prefix { $0.itemID != reachedID }
        let skipped = passed.count { !$0.local && !listed.contains($0.itemID) }
        if skipped > DeletionProof.mostDeletions(provedByPageOf: facts.itemIDs.count) { return nil }
        let serverRowsBelow = facts.farSideRows.dropFirst(passed.count + 1).count { !$0.local }
        return skipped > 0 && endsOnIt && serverRowsBelow >= skipped ? nil : reached
    }

    /// `edge`, or the first row of the far side the page lists after the last item the feed lacks
    /// that it lists where the feed has rows: between two rows of the far side, or under a lone one
    /// (not listed right under a far-side row cached above it) with cached rows under it. The rows
    /// above such an item moved up (bumped from under it) and go where the page lists them, however
    /// they stand among themselves. Nil when no row of the far side follows: the page did not reach
    /// the far side. Closed at `edge`, the items under it were left out for good, and the rows the
    /// page passed taken for deleted. Items listed under a run of far-side rows in their cached
    /// order, or under the far side's last row, are the list going on below rows that the server
    /// deleted, or below the far side: the run holds its place. In a list ordered by activity, only
    /// under the whole far side (``listsTheWholeFarSide(_:_:)``).
    private static func edgeOverTheFarSide(_ edge: Int, _ far: [Int], _ facts: Facts) -> Int? {
        let farOffsets = Set(far)
        let position = { (offset: Int) in facts.known[facts.itemIDs[offset]] }
        var rowAbove = edge
        var lastUnderARow: Int?
        for offset in (edge + 1)..<facts.itemIDs.count {
            if farOffsets.contains(offset) {
                rowAbove = offset
                continue
            }
            guard facts.lacks(facts.itemIDs[offset]) else { continue }
            let betweenRows = far.last.map { $0 > offset } ?? false
            let inARun =
                rowAbove > 0 && farOffsets.contains(rowAbove - 1)
                && (position(rowAbove - 1) ?? .max) < (position(rowAbove) ?? .min)
            let rowsUnder = (position(rowAbove) ?? .max) < (facts.farSideBottom ?? .min)
            let holdsItsPlace =
                facts.order == .byActivity
                ? listsTheWholeFarSide(far.filter { $0 >= edge && $0 <= rowAbove }, facts) : inARun || !rowsUnder
            if betweenRows || !holdsItsPlace { lastUnderARow = offset }
        }
        guard let lastUnderARow else { return edge }
        return far.first { $0 > lastUnderARow }
    }

    /// Whether `listed` (page offsets of far-side rows, in page order) are the far side's server
    /// rows down to its last one, in their cached order, none passed. In a list ordered by
    /// activity only that lets an item the feed lacks listed under them be the list going on: a
    /// run with rows passed between its rows, or with rows cached under it, may have moved up from
    /// above that item (each bumped in turn), and taking the passed rows for deleted skips them
    /// for good. Moved up, the rows leave the gap under the page for the next fill to reach them.
    /// Nor when the far side ends the list: nothing lies under it, and the rows, each bumped in
    /// turn, left their places over the items listed under them.
    private static func listsTheWholeFarSide(_ listed: [Int], _ facts: Facts) -> Bool {
        guard !facts.farSideEndsTheList, let bottom = facts.farSideBottom,
            facts.farSideRows.contains(where: { $0.position == bottom })
        else { return false }
        let serverRows = facts.farSideRows.filter { !$0.local && $0.position <= bottom }.map(\.itemID)
        return listed.map { facts.itemIDs[$0] } == serverRows
    }

    /// Whether the plan depends on the hidden items and the far side's bottom: the page lists an
    /// item the feed has no row for after a row of the far side. Filling from the top only.
    static func needsFarSideFacts(_ facts: Facts) -> Bool {
        guard facts.end == .top,
            let firstFar = facts.itemIDs.firstIndex(where: { facts.known[$0].map { $0 > facts.gapPosition } ?? false })
        else { return false }
        return facts.itemIDs[(firstFar + 1)...].contains { facts.known[$0] == nil }
    }

    /// The far side's edge a fill from the top reached: the first of the page's rows below the gap
    /// (`far`, page offsets) that no later one of them is cached above. One listed before a row
    /// cached above it moved up to where the page lists it.
    private static func firstInCachedOrder(_ far: [Int], _ facts: Facts) -> Int? {
        var lowestBelow = Int64.max  // the smallest position of the far rows listed after this one
        var edge: Int?
        for offset in far.reversed() {
            guard let position = facts.known[facts.itemIDs[offset]] else { continue }
            if position <= lowestBelow { edge = offset }
            lowestBelow = min(lowestBelow, position)
        }
        return edge
    }
}

extension GapFillRule.Facts {
    /// Whether the page lists `id` as an item the feed lacks: neither a row nor hidden.
    func lacks(_ id: String) -> Bool { known[id] == nil && !hidden.contains(id) }
}
