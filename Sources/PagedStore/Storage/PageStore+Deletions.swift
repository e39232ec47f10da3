import Foundation

/// Rows a server's answer proves deleted on the server.
///
/// A page lists a stretch of the server's list without holes. When a page reaches rows the feed
/// already has (a gap's fill that meets the rows on its far side, a next page that repeats rows
/// above the bottom), the cached rows inside that stretch which the page does not list are no
/// longer on the server: the cache must stop showing them.
///
/// Two guards keep a server that lies, or whose order changed, from emptying the feed:
/// - a page proves at most as many deletions as it has items (a page of 20 posts skipping 500
///   cached rows is an item that moved, not 500 deletions);
/// - the stretch never crosses another gap, whose rows are still unknown.
///
/// Rows the app inserted (`item.local`) were never listed by the server, so no page proves them
/// deleted, until a page lists one: the post was published, and it is a server row from then on.
extension PageStore {
    /// Which end of a stretch the page is known to be attached to.
    package enum StretchEnd: Sendable {
        /// The page starts right below the stretch's upper edge (a gap filled from its top).
        case upper
        /// The page ends right above the stretch's lower edge (a gap filled from its bottom, a next
        /// page that continues below the bottom row).
        case lower
    }

    /// Deletes the rows a page skipped between the rows it lists that the feed has and the edge the
    /// page is attached to (a gap's place, or the bottom row before a next page).
    ///
    /// Attached at the ``StretchEnd/upper`` edge (a gap filled from its top), the stretch runs from
    /// the edge, or from the last of the rows above it that the page lists first, down to the last
    /// known row the page lists (or the edge): a page that goes on from rows it repeats says that
    /// nothing lies between them and its next item. Attached at the ``StretchEnd/lower`` edge
    /// (a gap filled from its bottom, a next page), it runs from the first known row down to the edge
    /// when items follow the last known row, and only down to that row when the page ends there: a
    /// page that ends on known rows (a server's newest page answered instead of the one asked for)
    /// says nothing of what lies between them and the edge. Known rows out of the feed's order (an
    /// item that moved, a server that lies) prove nothing.
    /// - Parameter known: The page offsets and positions of the page's items that the feed has, in
    ///   page order.
    /// - Returns: The deleted rows' indices before the deletion, ascending.
    package func deleteRows(
        skippedBy items: [EncodedItem], known: [(offset: Int, position: Int64)], attachedAt end: StretchEnd,
        edge: Int64, in feed: inout FeedRecord
    ) throws -> [Int] {
        guard let first = known.first, let last = known.last,
            zip(known, known.dropFirst()).allSatisfy({ $0.position < $1.position })
        else { return [] }
        let listed = Set(items.map(\.itemID))
        switch end {
        case .upper:
            let repeated = known.prefix { $0.position <= edge }.last?.position
            return try deleteRows(
                notIn: listed, after: repeated ?? edge, through: max(last.position, edge), attachedAt: .upper,
                filling: edge, limit: items.count, in: &feed)
        case .lower:
            let reachesTheEdge = last.offset < items.count - 1
            return try deleteRows(
                notIn: listed, after: first.position, through: reachesTheEdge ? edge : last.position,
                attachedAt: .lower, filling: edge, limit: items.count, in: &feed)
        }
    }

    /// Deletes the server rows with positions in `after+1...through` whose ids are not in `listed`.
    ///
    /// What else the stretch proves is recorded in the same transaction: local rows it lists become
    /// server rows, and a pending optimistic removal whose two neighbours it lists, without the item,
    /// is settled (the server deleted the item too).
    ///
    /// - Parameters:
    ///   - listed: The ids of every item on the page.
    ///   - attachedAt: The edge the page is attached to: another gap inside the stretch cuts it
    ///     there, and rows beyond that gap stay (the page says nothing about them).
    ///   - filling: The place of the gap the page fills (or the bottom it continues): that gap is
    ///     the page's own, and cuts nothing.
    ///   - limit: The most rows one page may prove deleted (its item count).
    /// - Returns: The deleted rows' indices before the deletion, ascending; empty when nothing was
    ///   deleted (nothing missing, or more missing than the page can prove).
    private func deleteRows(
        notIn listed: Set<String>, after: Int64, through: Int64, attachedAt end: StretchEnd, filling edge: Int64,
        limit: Int, in feed: inout FeedRecord
    ) throws -> [Int] {
        var (upper, lower) = (after, through)
        let cuts = try gaps(of: feed).map(\.abovePosition).filter { $0 > upper && $0 < lower && $0 != edge }
        switch end {
        case .upper: lower = cuts.min() ?? lower
        case .lower: upper = cuts.max() ?? upper
        }
        guard upper < lower, limit > 0 else { return [] }
        // A stretch longer than the page, its local rows and some slack is not one the page listed.
        let cap = listed.count + limit + 64
        let rows = try stretch(after: upper, through: lower, limit: cap + 1, in: feed)
        guard rows.count <= cap else { return [] }
        // A row the app inserted that the page lists is on the server now (the post was published):
        // from here on, a page that skips it proves it deleted, as for any server row.
        let published = rows.filter { $0.local && listed.contains($0.itemID) }.map(\.position)
        if !published.isEmpty { try markServerRows(at: published, in: feed) }
        let missing = rows.indices.filter { !rows[$0].local && !listed.contains(rows[$0].itemID) }
        let removed = try pendingRemovals(provenDeletedBy: listed, from: upper, through: lower, in: feed)
        guard !missing.isEmpty || !removed.isEmpty, missing.count + removed.count <= limit else { return [] }
        for itemID in removed { try deletePendingEdit(itemID: itemID, in: feed) }
        guard !missing.isEmpty else { return [] }
        let firstRow = try rowCount(throughPosition: upper, in: feed)
        for index in missing {
            _ = try deleteRows(in: feed, from: rows[index].position, through: rows[index].position)
        }
        let deletedPositions = Set(missing.map { rows[$0].position })
        feed.rowCount = try Self.count(feed.rowCount, adding: -missing.count)
        if let top = feed.topPosition, deletedPositions.contains(top) {
            feed.topPosition = try firstPosition(after: top, in: feed)
        }
        if let bottom = feed.bottomPosition, deletedPositions.contains(bottom) {
            feed.bottomPosition = try window(of: feed, from: .before(position: bottom), limit: 1).first?.position
        }
        try save(&feed)
        return try missing.map { try Self.count(firstRow, adding: $0) }
    }

    /// The items removed by a pending optimistic edit that the page proves gone from the server: it
    /// lists both rows the item was removed from, inside the stretch, and not the item. Their edits
    /// are settled by the server's own list: a rollback (the call failed, or its answer was lost
    /// after the server deleted the item) must not bring back an item the server no longer has.
    private func pendingRemovals(
        provenDeletedBy listed: Set<String>, from upper: Int64, through lower: Int64, in feed: FeedRecord
    ) throws(StorageError) -> [String] {
        let removals = try pendingEdits(of: feed).filter { edit in
            guard edit.kind == .remove, !listed.contains(edit.itemID), let above = edit.above, let below = edit.below
            else { return false }
            return listed.contains(above) && listed.contains(below)
        }
        guard !removals.isEmpty else { return [] }
        let around = try items(withIDs: removals.flatMap { [$0.above ?? "", $0.below ?? ""] }, in: feed)
        return removals.filter { edit in
            [edit.above, edit.below].allSatisfy { id in
                id.flatMap { around[$0]?.position }.map { (upper...lower).contains($0) } ?? false
            }
        }.map(\.itemID)
    }

    /// Clears the local mark of the rows at `positions`: the server listed them.
    private func markServerRows(at positions: [Int64], in feed: FeedRecord) throws(StorageError) {
        for position in positions {
            try connection.withStatement("UPDATE item SET local = 0 WHERE feed_id = ? AND position = ?") {
                statement throws(StorageError) in
                try statement.bind(1, feed.id)
                try statement.bind(2, position)
                try statement.step()
            }
        }
    }

    /// The rows with positions in `after+1...through`, top first, at most `limit` of them.
    private func stretch(
        after: Int64, through: Int64, limit: Int, in feed: FeedRecord
    ) throws(StorageError) -> [(itemID: String, position: Int64, local: Bool)] {
        let sql = """
            SELECT item_id, position, local FROM item WHERE feed_id = ? AND position > ? AND position <= ?
            ORDER BY position LIMIT ?
            """
        return try connection.withStatement(sql) { statement throws(StorageError) in
            try statement.bind(1, feed.id)
            try statement.bind(2, after)
            try statement.bind(3, through)
            try statement.bind(4, limit)
            var rows: [(itemID: String, position: Int64, local: Bool)] = []
            while try statement.step() {
                rows.append((statement.string(0) ?? "", statement.int64(1), statement.int64(2) != 0))
            }
            return rows
        }
    }
}
