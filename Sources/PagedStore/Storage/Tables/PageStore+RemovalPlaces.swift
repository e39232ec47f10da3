import Foundation

/// Where a pending removal's item goes back: the rows around it (shown, or hidden by other
/// removals), the position its row had, and what pages proved of that place (moved, disproved,
/// lost). Read by a new removal, by the replay of a write that brought an item back, and by a
/// rollback (`PendingEditSettlement`).
extension PageStore {
    /// The ids of the rows right above and right below `position`.
    package func neighbours(
        of position: Int64, in feed: FeedRecord
    ) throws(StorageError) -> (above: String?, below: String?) {
        (
            try window(of: feed, from: .before(position: position), limit: 1).first?.itemID,
            try window(of: feed, from: .after(position: position), limit: 1).first?.itemID
        )
    }

    /// The items right above and right below `position`, whether shown or hidden: on each side the
    /// closer of the row there and the row of an item whose removal waits (where it stood, while a
    /// page has not proved that place wrong or lost it). Removals next to each other name each
    /// other's items this way, so that a rollback reads through their places to the closest rows
    /// shown, and each goes back in its order whatever the order of the answers.
    /// - Parameter moving: Items whose removals are being given new places in this write: the
    ///   places they had are passed over, as they no longer stand for those items.
    /// - Parameter rowsBelowFrom: Where the row below is looked for, when not right below
    ///   `position`: under rows that are leaving too.
    package func placeNeighbours(
        of position: Int64, in feed: FeedRecord, passingOver moving: Set<String> = [],
        rowsBelowFrom: Int64? = nil
    ) throws(StorageError) -> (above: String?, below: String?) {
        let rowAbove = try window(of: feed, from: .before(position: position), limit: 1).first
        let rowBelow = try window(of: feed, from: .after(position: rowsBelowFrom ?? position), limit: 1).first
        let removedAbove = try closestWaitingRemoval(to: position, in: feed, above: true, passingOver: moving)
        let removedBelow = try closestWaitingRemoval(to: position, in: feed, above: false, passingOver: moving)
        let above = [rowAbove.map { ($0.itemID, $0.position) }, removedAbove].compactMap { $0 }.max { $0.1 < $1.1 }
        let below = [rowBelow.map { ($0.itemID, $0.position) }, removedBelow].compactMap { $0 }.min { $0.1 < $1.1 }
        return (above?.0, below?.0)
    }

    /// The waiting removal whose row stood closest to `position` on one side, with that place; not
    /// one of `moving`'s, nor one whose place the rows it names contradict (a row it names above
    /// it stands below that place, or one it names below stands above it): a page put those rows
    /// elsewhere, and the place no longer says where its item goes.
    private func closestWaitingRemoval(
        to position: Int64, in feed: FeedRecord, above: Bool, passingOver moving: Set<String>
    ) throws(StorageError) -> (String, Int64)? {
        // The rows it names, where the feed has them, must stand on their sides of its place.
        let sql = """
            SELECT edit.item_id, edit.removed_position FROM pending_edit AS edit
            LEFT JOIN item AS above ON above.feed_id = edit.feed_id AND above.item_id = edit.above_id
            LEFT JOIN item AS below ON below.feed_id = edit.feed_id AND below.item_id = edit.below_id
            WHERE edit.feed_id = ? AND edit.kind = 'remove' AND edit.detached = 0 AND edit.place_lost = 0
                AND edit.place_disproved = 0 AND edit.removed_position \(above ? "<" : ">") ?
                AND (above.position IS NULL OR above.position <= edit.removed_position)
                AND (below.position IS NULL OR below.position >= edit.removed_position)
            ORDER BY edit.removed_position \(above ? "DESC" : "ASC")
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, position)
            while try statement.step() {
                guard let itemID = statement.string(0) else { continue }
                if !moving.contains(itemID) { return (itemID, statement.int64(1)) }
            }
            return nil
        }
    }

    /// The rows each of the feed's pending removals named around its item, by item id; none for a
    /// removal whose place is lost (``losePendingRemovalPlaces(in:)``): the rows it names are of
    /// another list, and a chain of removals that reaches it ends nowhere.
    package func pendingRemovalPlaces(
        in feed: FeedRecord
    ) throws(StorageError) -> [String: (above: String?, below: String?)] {
        let sql = """
            SELECT item_id, above_id, below_id FROM pending_edit
            WHERE feed_id = ? AND kind = 'remove' AND detached = 0 AND place_lost = 0
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            var places: [String: (above: String?, below: String?)] = [:]
            while try statement.step() {
                guard let itemID = statement.string(0) else { continue }
                places[itemID] = (statement.string(1), statement.string(2))
            }
            return places
        }
    }

    /// Hands the place of an item that left the feed for good to the pending edits that named it:
    /// one that named it as the row above now names the row that was above it, and likewise below.
    /// A rollback then puts their items back next to the closest rows left, not nowhere.
    package func handOnPlace(
        of itemID: String, above: String?, below: String?, in feed: FeedRecord
    ) throws(StorageError) {
        try connection.run(
            "UPDATE pending_edit SET above_id = ? WHERE feed_id = ? AND above_id = ?", above, feed.id, itemID)
        try connection.run(
            "UPDATE pending_edit SET below_id = ? WHERE feed_id = ? AND below_id = ?", below, feed.id, itemID)
    }

    /// The feed's waiting removals of items whose rows stood over a gap (at or above its `place`),
    /// with the item each names as the row below and whether that item stands under the rows a
    /// fill wrote there (`lastWritten` and above): a row below them, or an item whose removal waits
    /// with its row's place under the gap. What ``PendingEditReplay/handedOnOverAGap(_:to:listing:)``
    /// judges.
    func pendingRemovalsOverAGap(
        at place: Int64, lastWritten: Int64, in feed: FeedRecord
    ) throws(StorageError) -> [PendingEditReplay.RemovalOverAGap] {
        let sql = """
            SELECT item_id, below_id,
                below_id IN (SELECT item_id FROM item WHERE feed_id = ?1 AND position > ?3)
                OR below_id IN (
                    SELECT item_id FROM pending_edit
                    WHERE feed_id = ?1 AND kind = 'remove' AND detached = 0 AND removed_position > ?2
                )
            FROM pending_edit
            WHERE feed_id = ?1 AND kind = 'remove' AND detached = 0 AND place_lost = 0 AND removed_position <= ?2
            """
        return try connection.rows(sql, feed.id, place, lastWritten) { row in
            row.string(0).map {
                PendingEditReplay.RemovalOverAGap(
                    itemID: $0, below: row.string(1), belowStandsUnderTheFill: row.int64(2) != 0)
            }
        }.compactMap { $0 }
    }

    /// Makes the pending removals of `items` name `below` as the row below their own.
    func namePendingRemovals(
        of items: [String], below: String, in feed: FeedRecord
    ) throws(StorageError) {
        for item in items {
            try connection.run(
                "UPDATE pending_edit SET below_id = ? WHERE feed_id = ? AND item_id = ? AND kind = 'remove'",
                below, feed.id, item)
        }
    }

    /// Removes the row of an item a page lists elsewhere (a post bumped up) and hands the place it
    /// leaves to the pending edits that named it (``handOnPlace(of:above:below:in:)``): in the
    /// server's list their items stand next to the items around that place, not next to the row
    /// that moved. Named by the moved row, a rejected removal's item would go back next to it, among
    /// a page's rows, and the next page listing them without it would prove it deleted.
    /// - Returns: The removed row and its index, nil when the feed has no row for the item.
    package func removeMovedItem(
        _ itemID: String, from feed: inout FeedRecord
    ) throws -> (item: StoredItem, row: Int)? {
        if try pendingEditsName(itemID, in: feed), let moved = try items(withIDs: [itemID], in: feed)[itemID] {
            try handOnPlace(ofRowLeaving: moved, in: feed)
        }
        return try removeItem(itemID, from: &feed)
    }

    /// Hands the place `row` is leaving to the pending edits that named it: they name the rows, or
    /// the places of waiting removals, around its position instead
    /// (``placeNeighbours(of:in:passingOver:rowsBelowFrom:)``). Call before the row moves.
    /// - Parameter rowsBelowFrom: Where the row below is looked for, when the rows right below `row`
    ///   are leaving too (a page rewriting the head down to that position).
    package func handOnPlace(
        ofRowLeaving row: StoredItem, rowsBelowFrom: Int64? = nil, in feed: FeedRecord
    ) throws(StorageError) {
        let around = try placeNeighbours(of: row.position, in: feed, rowsBelowFrom: rowsBelowFrom)
        try handOnPlace(of: row.itemID, above: around.above, below: around.below, in: feed)
    }

    /// Whether a pending edit of the feed names the item as the row above or below its own.
    private func pendingEditsName(_ itemID: String, in feed: FeedRecord) throws(StorageError) -> Bool {
        let sql = """
            SELECT EXISTS (SELECT 1 FROM pending_edit WHERE feed_id = ? AND (above_id = ? OR below_id = ?))
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, itemID)
            try statement.bind(3, itemID)
            return try statement.step() && statement.int64(0) != 0
        }
    }

    /// Marks the place the item's pending removal names as proved wrong: a page listed those rows
    /// and not the item between them. The removal keeps naming them (see
    /// ``PendingEditReplay/takesNewPlace(cameBackAt:removedBetween:and:placeDisproved:)``); the mark
    /// goes when the removal names other rows (``savePendingEdit(_:in:)``).
    package func disprovePendingRemovalPlace(of itemID: String, in feed: FeedRecord) throws(StorageError) {
        try connection.run(
            "UPDATE pending_edit SET place_disproved = 1 WHERE feed_id = ? AND item_id = ? AND kind = 'remove'",
            feed.id, itemID)
    }

    /// Makes the item's pending removal name `above` and `below` as its place: a page listed the item
    /// between them. The position its row had is of the old place: it goes, and a rollback puts the
    /// item between those rows.
    package func movePendingRemoval(
        of itemID: String, between above: String, and below: String, in feed: FeedRecord
    ) throws(StorageError) {
        try connection.run(
            """
            UPDATE pending_edit SET above_id = ?, below_id = ?, place_disproved = 0, place_lost = 0,
                removed_position = NULL
            WHERE feed_id = ? AND item_id = ? AND kind = 'remove'
            """, above, below, feed.id, itemID)
    }

    /// Marks the places of the feed's pending removals lost: a page replaced the list, and the rows
    /// and positions they name are of a list the feed no longer has. A rollback waits for a page to
    /// list the item, which gives it a place again (``savePendingEdit(_:in:)``).
    package func losePendingRemovalPlaces(in feed: FeedRecord) throws(StorageError) {
        try connection.run(
            """
            UPDATE pending_edit SET place_lost = 1, removed_position = NULL
            WHERE feed_id = ? AND kind = 'remove' AND detached = 0
            """, feed.id)
    }

    /// What is known against the place the item's pending removal names: whether a page proved it
    /// wrong (``disprovePendingRemovalPlace(of:in:)``) and whether it is lost
    /// (``losePendingRemovalPlaces(in:)``). Neither for an item with no removal pending.
    package func pendingRemovalPlaceStanding(
        of itemID: String, in feed: FeedRecord
    ) throws(StorageError) -> (disproved: Bool, lost: Bool) {
        let sql = """
            SELECT place_disproved, place_lost FROM pending_edit
            WHERE feed_id = ? AND item_id = ? AND kind = 'remove' AND detached = 0
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, itemID)
            guard try statement.step() else { return (false, false) }
            return (statement.int64(0) != 0, statement.int64(1) != 0)
        }
    }
}
