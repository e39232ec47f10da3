/// Filling a gap marker with the page fetched from its cursor.
extension PageStore {
    /// What filling a gap did.
    package struct GapFill: Sendable, Equatable {
        /// The row index of the first inserted row.
        package var firstRow: Int
        /// How many rows were inserted.
        package var inserted: Int
        /// Whether the gap is closed (the page reached the rows below it, or the server's end).
        package var closed: Bool
    }

    /// Inserts a page fetched for the gap above `gap.belowPosition`, up to the first item the feed
    /// already has (the proof that the page reached the rows below the gap, which closes it).
    ///
    /// The rows join the page of the row above the gap, whose row count grows with them.
    /// - Returns: Nil when the gap no longer exists.
    package func fillGap(
        above: Int64, with items: [EncodedItem], olderCursor: String?, in feed: inout FeedRecord
    ) throws -> GapFill? {
        guard let gap = try gaps(of: feed).first(where: { $0.abovePosition == above }) else { return nil }
        let known = try self.items(withIDs: items.map(\.itemID), in: feed)
        let firstKnown = items.firstIndex { known[$0.itemID] != nil }
        let fresh = items[..<(firstKnown ?? items.count)]
        let closed = firstKnown != nil || olderCursor == nil
        var below = gap.belowPosition
        if try StoredArithmetic.difference(below, above, "a gap's position") <= Int64(fresh.count) {
            try shiftRows(in: &feed, from: below, by: Int64(fresh.count + 1) * Self.positionStep)
            below = try firstPosition(after: above, in: feed) ?? below
        }
        let step = try StoredArithmetic.difference(below, above, "a gap's position") / Int64(fresh.count + 1)
        let pageNo = try self.pageNo(atPosition: above, in: feed) ?? 0
        for (offset, item) in fresh.enumerated() {
            _ = try insert(
                item, position: above + Int64(offset + 1) * step, pageNo: pageNo, into: feed, ignoringDuplicate: false)
        }
        try connection.withStatement("UPDATE page SET row_count = row_count + ? WHERE feed_id = ? AND page_no = ?") {
            statement throws(StorageError) in
            try statement.bind(1, fresh.count)
            try statement.bind(2, feed.id)
            try statement.bind(3, pageNo)
            try statement.step()
        }
        try removeGap(above: above, in: feed)
        let lastInserted = above + Int64(fresh.count) * step
        if !closed {
            try addGap(above: lastInserted, below: below, cursor: olderCursor, in: feed)
        }
        feed.rowCount += fresh.count
        feed.hasSections = feed.hasSections || fresh.contains { $0.section != nil }
        try save(feed)
        return GapFill(firstRow: try rowIndex(ofPosition: above, in: feed) + 1, inserted: fresh.count, closed: closed)
    }
}
