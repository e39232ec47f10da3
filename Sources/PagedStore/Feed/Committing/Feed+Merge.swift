import Foundation

/// Carrying out a refresh's merge (``RefreshMerge``) in the store.
extension Feed {
    /// The merge itself: the plan from ``RefreshMerge`` carried out in the store.
    static func merge(
        _ encoded: [EncodedItem], items: [Item], page: PageWrite, into feed: inout FeedRecord, policy: FeedPolicy,
        store: PageStore
    ) throws -> Commit {
        if let commit = try mergeWithAnEmptySide(encoded, page: page, into: &feed, store: store) { return commit }
        let (head, matches) = try headAndMatches(of: encoded, in: feed, store: store)
        let snapshotFeed = feed
        let hiddenAboveTheTop =
            RefreshMerge.needsHiddenAboveTheTop(policy.itemOrder)
            ? try hiddenAbove(head.first, leftOutBy: encoded, in: feed, store: store) : 0
        let plan = try RefreshMerge.plan(
            page: encoded, head: head, matches: matches, order: policy.itemOrder, hiddenAboveTheTop: hiddenAboveTheTop
        ) {
            try store.rowIndex(ofPosition: $0, in: snapshotFeed)
        }
        switch plan {
        case .noOverlap where policy.gapPolicy == .keepGap && page.olderCursor != nil:
            return try prependAboveAGap(encoded, items: items, page: page, matches: matches, to: &feed, store: store)
        case .noOverlap:
            let written = try replaceFeed(with: encoded, page: page, in: &feed, store: store)
            return Commit(
                record: feed, change: .fullReload, window: .reload, copies: written.map { encoded[$0.offset] })
        case .prepend(let newItems, let reloads):
            return try prepend(
                newItems, reloading: reloads, items: items, head: head, page: page, to: &feed, store: store)
        case .rewrite(let through, let relocated, let change, let joinsBelow):
            for item in relocated { _ = try store.removeMovedItem(item.itemID, from: &feed) }
            try handOnPlacesLeft(
                by: head.prefix { $0.position <= through }, through: through, listing: encoded, in: feed, store: store)
            // Rows below that the page may not reach: under the keepGap policy, a gap the page's
            // cursor fills. The replace policy shows no gaps: it keeps the rows right below.
            let gapCursor = !joinsBelow && policy.gapPolicy == .keepGap ? page.olderCursor : nil
            // No row below: the page rewrote the list down to its end (the bottom row bumped over
            // new posts), and the list goes on from the page's cursor, whatever end the old rows
            // had reached. The page replaced the list: the places pending removals name are of a
            // list the feed no longer has, and their items lie somewhere below the page, as in
            // ``replaceFeed(with:page:in:store:)``.
            let reachesTheEnd = try store.firstPosition(after: through, in: feed) == nil
            if reachesTheEnd, page.olderCursor != nil { try store.losePendingRemovalPlaces(in: feed) }
            try store.replaceHead(through: through, with: encoded, page: page, in: &feed, gapCursor: gapCursor)
            if reachesTheEnd { try store.advanceOlderCursor(to: page.olderCursor, in: &feed) }
            return Commit(record: feed, change: change, window: .reload, copies: encoded)
        }
    }

    /// Hands on the places of the head's rows a rewrite moves away from the items of pending
    /// removals right above them (``PendingEditReplay/rowsLeavingTheirPlaces(rewritten:listed:removedPlaces:)``),
    /// before the rows are rewritten. The rows under such a place that the page rewrites leave it
    /// too, so the row named below is the first one under them all: posts bumped in their cached
    /// order, named by the next of them, put a rejected item back between two of the page's rows,
    /// where the next refresh proved it deleted. One look at the pending removals; none when the
    /// feed has no pending edits.
    private static func handOnPlacesLeft(
        by rewritten: some Collection<StoredItem>, through: Int64, listing encoded: [EncodedItem],
        in feed: FeedRecord, store: PageStore
    ) throws {
        let places = try store.pendingRemovalPlaces(in: feed)
        guard !places.isEmpty else { return }
        let leaving = PendingEditReplay.rowsLeavingTheirPlaces(
            rewritten: rewritten.map(\.itemID), listed: Set(encoded.map(\.itemID)), removedPlaces: places)
        for row in rewritten where leaving.contains(row.itemID) {
            try store.handOnPlace(ofRowLeaving: row, rowsBelowFrom: through, in: feed)
        }
    }

    /// How many items whose removals wait had rows above `top` that `encoded` does not list.
    private static func hiddenAbove(
        _ top: StoredItem?, leftOutBy encoded: [EncodedItem], in feed: FeedRecord, store: PageStore
    ) throws -> Int {
        guard let top else { return 0 }
        let listed = Set(encoded.map(\.itemID))
        return try store.waitingRemovals(of: feed).count { $0.position < top.position && !listed.contains($0.itemID) }
    }

    /// The merge of a page with no items, or into a feed with no rows: nothing can overlap. Nil when
    /// both the page and the feed have rows.
    private static func mergeWithAnEmptySide(
        _ encoded: [EncodedItem], page: PageWrite, into feed: inout FeedRecord, store: PageStore
    ) throws -> Commit? {
        if encoded.isEmpty, page.olderCursor != nil, feed.rowCount > 0 {
            // An empty newest page that still points to older ones (a server that filtered its top
            // page empty) is nothing new, not an empty list.
            try store.prependPage([], page: page, to: &feed)
            return Commit(record: feed, change: RowChange(), window: .prepend(LoadedRows(), reloads: []))
        }
        guard feed.rowCount == 0 || encoded.isEmpty else { return nil }
        let wasEmpty = feed.rowCount == 0
        let written = try replaceFeed(with: encoded, page: page, in: &feed, store: store)
        let change = wasEmpty ? RowChange(inserted: Array(0..<feed.rowCount)) : .fullReload
        return Commit(record: feed, change: change, window: .reload, copies: written.map { encoded[$0.offset] })
    }

    /// Replaces the feed's list with the page's. When the page continues below (it has an older
    /// cursor), the items of the pending removals it does not list lie somewhere below it, in a
    /// place no row of the feed names any more: their places are lost
    /// (``PageStore/losePendingRemovalPlaces(in:)``), and a rejection waits for the pages that list
    /// them. The rows and positions they named could not be told from those of a list whose every
    /// row was removed, which a rejection puts back at its ends. A page that ends the list is the
    /// server's whole list: what it leaves out is not below it.
    private static func replaceFeed(
        with encoded: [EncodedItem], page: PageWrite, in feed: inout FeedRecord, store: PageStore
    ) throws -> [WrittenRow] {
        if page.olderCursor != nil { try store.losePendingRemovalPlaces(in: feed) }
        return try store.replaceFeed(with: encoded, page: page, in: &feed)
    }

    /// The cached head the merge plans with, and the cached rows, anywhere in the feed, whose ids the
    /// page lists.
    private static func headAndMatches(
        of encoded: [EncodedItem], in feed: FeedRecord, store: PageStore
    ) throws -> (head: [StoredItem], matches: [String: StoredItem]) {
        // The head first: its pages are the hot top of the feed, and it usually holds every shared id.
        // Only ids it lacks are looked up by id (random pages of the id index), to find rows deeper down.
        var head = try store.window(of: feed, from: .top, limit: encoded.count)
        let pageIDs = Set(encoded.map(\.itemID))
        var matches: [String: StoredItem] = [:]
        matches.reserveCapacity(encoded.count)
        for row in head where pageIDs.contains(row.itemID) { matches[row.itemID] = row }
        let unmatched = encoded.lazy.map(\.itemID).filter { matches[$0] == nil }
        let deeper = try store.items(withIDs: unmatched, in: feed)
        matches.merge(deeper) { first, _ in first }
        if let deepest = deeper.values.map(\.position).max() {
            head = try store.head(of: feed, through: deepest, limit: RefreshMerge.headLimit(pageSize: encoded.count))
        }
        return (head, matches)
    }

    /// A page that shares no id with the cached head, written on top with a gap below it (the keepGap
    /// policy): the rows it shares far below move up into it.
    private static func prependAboveAGap(
        _ encoded: [EncodedItem], items: [Item], page: PageWrite, matches: [String: StoredItem],
        to feed: inout FeedRecord, store: PageStore
    ) throws -> Commit {
        // Ids shared only far below would appear twice: they move to the top with the new page.
        // Their rows are taken before any is removed: a batch names rows of the previous snapshot.
        let deleted = try matches.values.map { try store.rowIndex(ofPosition: $0.position, in: feed) }.sorted()
        for match in matches.values { _ = try store.removeMovedItem(match.itemID, from: &feed) }
        // No older cursor and no end: no page was ever fetched, the cached rows are local only.
        let neverFetched = feed.oldestCursor == nil && !feed.endReached
        // The old head's newer cursor fills the gap from its bottom, unless a row of that head
        // moved up into the page: the cursor then names a place above the gap. So does a row whose
        // removal waits that the page lists: it has no row to match, but it was read with the page
        // that cursor names (the user removed the rows on top, and the refresh listed them again),
        // and a fill from below with it would answer rows above the gap and close it, skipping
        // everything between.
        let listed = Set(encoded.map(\.itemID))
        let waiting = try store.waitingRemovals(of: feed)
        let listsAWaitingRemoval = waiting.contains { listed.contains($0.itemID) }
        let oldHeadNewerCursor = matches.isEmpty && !listsAWaitingRemoval ? feed.newestCursor : nil
        let gapsAbove = try store.gapsAboveTheTop(of: feed)
        if !gapsAbove.isEmpty {
            let wentPast = RefreshMerge.gapsThePageWentPast(gapsAbove.map(\.place), waiting: waiting, listed: listed)
            for gap in gapsAbove where wentPast.contains(gap.place) { try store.removeGap(id: gap.id, in: feed) }
        }
        let positions = try store.prependPage(encoded, page: page, to: &feed)
        if neverFetched {
            // No server rows are missing between local rows and the page: its cursor continues
            // below them.
            try store.advanceOlderCursor(to: page.olderCursor, in: &feed)
        } else if let lastNew = positions.last {
            try store.addGap(
                at: lastNew, cursor: page.olderCursor, newerCursor: oldHeadNewerCursor, in: feed, at: page.fetchedAt)
        }
        let rows = newRows(items, encoded, positions: positions)
        // The moved items are deleted and inserted rows: named by id when their content changed.
        let changed = encoded.filter { item in matches[item.itemID].map { $0.payload != item.payload } ?? false }
        return Commit(
            record: feed,
            change: RowChange(deleted: deleted, inserted: Array(0..<encoded.count), reloadedIDs: changed.map(\.itemID)),
            window: deleted.isEmpty ? .prepend(rows, reloads: []) : .reload, copies: encoded)
    }

    /// The common merge: `newItems` on top of an unchanged cached head, whose changed rows
    /// (`reloads`, rows of `head`) take their new payloads in place.
    private static func prepend(
        _ newItems: [EncodedItem], reloading reloads: [(row: Int, item: EncodedItem)], items: [Item],
        head: [StoredItem], page: PageWrite, to feed: inout FeedRecord, store: PageStore
    ) throws -> Commit {
        let positions = try store.prependPage(newItems, page: page, to: &feed)
        for reload in reloads { try store.updateItem(reload.item, at: head[reload.row].position, in: &feed) }
        let rows = newRows(Array(items[..<newItems.count]), newItems, positions: positions)
        let reloadedRows = reloads.map { reload in
            (
                row: reload.row, item: items[newItems.count + reload.row],
                key: RowKey(id: reload.item.itemID, position: head[reload.row].position, section: reload.item.section)
            )
        }
        return Commit(
            record: feed,
            change: RowChange(
                inserted: Array(0..<newItems.count), reloaded: reloads.map(\.row),
                reloadedIDs: reloads.map(\.item.itemID)),
            window: .prepend(rows, reloads: reloadedRows), copies: newItems + reloads.map(\.item))
    }
}
