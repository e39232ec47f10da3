import Foundation

/// Carries out ``DeletionProof`` in the caller's write transaction: reads the facts the rule needs
/// from the store, asks the rule, and writes its plan.
enum ProvenDeletions {
    /// Deletes the rows a page skipped between the rows it lists that the feed has and the edge the
    /// page is attached to (a gap's place, the bottom row before a next page, the place above the
    /// top), publishes the local rows it lists, settles the pending removals made with a closure
    /// that it proves deleted, and moves those it proves out of place to where it lists their item,
    /// or marks their place as wrong when it does not list it between rows the feed has.
    /// - Parameter known: The page offsets and positions of the page's items that the feed has, in
    ///   page order.
    /// - Returns: The deleted rows' indices before the deletion, ascending.
    static func delete(
        skippedBy items: [EncodedItem], known: [(offset: Int, position: Int64)], attachedAt end: DeletionProof.End,
        edge: Int64, in feed: inout FeedRecord, store: PageStore
    ) throws -> [Int] {
        guard items.count > 0,
            let whole = DeletionProof.stretch(known: known, itemCount: items.count, attachedAt: end, edge: edge),
            let stretch = DeletionProof.cut(
                whole, atGaps: try store.gaps(of: feed).map(\.abovePosition), attachedAt: end, filling: edge)
        else { return [] }
        let listed = Set(items.map(\.itemID))
        let limit = DeletionProof.mostDeletions(provedByPageOf: items.count)
        let longest = DeletionProof.longestStretch(listed: listed.count, limit: limit)
        let rows = try store.rows(after: stretch.after, through: stretch.through, limit: longest + 1, in: feed).map {
            DeletionProof.Row(itemID: $0.itemID, position: $0.position, local: $0.local)
        }
        guard rows.count <= longest else { return [] }
        let removals = try pendingRemovals(listedAround: listed, in: feed, store: store)
        let plan = DeletionProof.plan(
            rows: rows, in: stretch, listed: items.map(\.itemID), limit: limit, removals: removals)
        if !plan.published.isEmpty { try store.markServerRows(at: plan.published, in: feed) }
        for removal in removals where plan.settled.contains(removal.itemID) {
            // Proved deleted: the removals that named the item take its place.
            try handOnPlace(of: removal, in: feed, store: store)
            try store.deletePendingRemoval(itemID: removal.itemID, in: feed)
        }
        for removal in removals where plan.displaced.contains(removal.itemID) && plan.movedTo[removal.itemID] == nil {
            try store.disprovePendingRemovalPlace(of: removal.itemID, in: feed)
        }
        // The removals that named a moved item keep the place it had; then each takes the one the page
        // lists, which may name another moved item (listed next to it).
        for removal in removals where plan.movedTo[removal.itemID] != nil {
            try handOnPlace(of: removal, in: feed, store: store)
        }
        for (itemID, place) in plan.movedTo {
            try store.movePendingRemoval(of: itemID, between: place.above, and: place.below, in: feed)
        }
        guard !plan.deleted.isEmpty else { return [] }
        let firstRow = try store.rowCount(throughPosition: stretch.after, in: feed)
        let offsets = Dictionary(rows.enumerated().map { ($1.position, $0) }, uniquingKeysWith: { first, _ in first })
        let indices = try plan.deleted.map { try PageStore.count(firstRow, adding: offsets[$0.position] ?? 0) }
        try store.deleteRows(at: plan.deleted.map(\.position), in: &feed)
        return indices
    }

    /// Hands the place the item's removal names now (earlier hand-ons of the same page may have
    /// changed it) to the removals that named the item. Never the rows the proof read through other
    /// removals' places: two removals that named the item on either side would then name one place,
    /// and a rollback could put them back in either order.
    private static func handOnPlace(
        of removal: DeletionProof.PendingRemoval, in feed: FeedRecord, store: PageStore
    ) throws {
        let own = try store.pendingEdits(ofItem: removal.itemID, in: feed).last { $0.kind == .remove }
        try store.handOnPlace(
            of: removal.itemID, above: own?.above ?? removal.above?.id, below: own?.below ?? removal.below?.id, in: feed
        )
    }

    /// The feed's pending removals whose two neighbours `listed` names, with where those rows are,
    /// and those whose place is lost and whose item it names.
    ///
    /// Removals next to each other name each other's items, which have no row: each side stands
    /// for the closest row the chain of their places reaches (``PendingEditReplay/standIn(for:on:rows:removedPlaces:)``),
    /// so that a page that moves both items proves both places wrong.
    private static func pendingRemovals(
        listedAround listed: Set<String>, in feed: FeedRecord, store: PageStore
    ) throws -> [DeletionProof.PendingRemoval] {
        var removals = try store.pendingEdits(of: feed).filter { $0.kind == .remove }
        guard !removals.isEmpty else { return [] }
        // A removal whose place is lost names rows of another list: only a page listing its item
        // says where it is.
        let places = try store.pendingRemovalPlaces(in: feed)
        let lost = removals.filter { places[$0.itemID] == nil && listed.contains($0.itemID) }.map {
            DeletionProof.PendingRemoval(itemID: $0.itemID, queued: $0.queued != nil, placeLost: true)
        }
        removals.removeAll { places[$0.itemID] == nil }
        let named = Set(removals.flatMap { [$0.above, $0.below] }.compactMap { $0 })
        let around = try store.items(withIDs: Array(named), in: feed)
        let rows = Set(around.keys)
        return lost
            + removals.compactMap { edit in
                let above = PendingEditReplay.standIn(for: edit.above, on: .above, rows: rows, removedPlaces: places)
                let below = PendingEditReplay.standIn(for: edit.below, on: .below, rows: rows, removedPlaces: places)
                guard let above, let below, listed.contains(above), listed.contains(below) else { return nil }
                return DeletionProof.PendingRemoval(
                    itemID: edit.itemID, above: (above, around[above]?.position),
                    below: (below, around[below]?.position),
                    queued: edit.queued != nil)
            }
    }
}
