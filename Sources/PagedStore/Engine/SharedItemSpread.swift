/// Writes the copies a feed's write stored into every other feed holding the same shared items, in
/// the same transaction, as ``SharedCopyRule`` decides; each feed written this way gets its own
/// recorded change (a reload at its own row), so that its open lists follow.
enum SharedItemSpread {
    /// Spreads `copies`, stamped `stamp`, from the feed `writer` to the feeds sharing their items
    /// as `type`.
    /// - Returns: What each other feed's rows went through, for the change record.
    static func spread(
        _ copies: [EncodedItem], sharedAs type: String, stamp: Int64, from writer: Int64, in store: PageStore
    ) throws -> [RecordedWrite] {
        var touched: [Int64: Touched] = [:]
        var order: [Int64] = []
        for copy in SharedCopyRule.latestCopies(copies) {
            try store.replacePendingRemovalBases(copy, sharedAs: type, except: writer)
            let holders = try store.sharedHolders(of: copy.itemID, sharedAs: type, except: writer)
            for step in SharedCopyRule.steps(forCopyAt: stamp, holders: holders) {
                switch step {
                case .replaceEditBase(let holder):
                    try store.replacePendingBase(copy, in: holder.feedID)
                case .replaceRow(let holder):
                    guard try store.replaceSharedCopy(copy, stamp: stamp, at: holder.position, in: holder.feedID),
                        let feed = try touched[holder.feedID]?.before ?? store.feed(id: holder.feedID)
                    else { continue }
                    if touched[holder.feedID] == nil { order.append(holder.feedID) }
                    let row = try store.rowIndex(ofPosition: holder.position, in: feed)
                    touched[holder.feedID, default: Touched(before: feed)].reload(row: row, id: copy.itemID)
                    if copy.section != nil { touched[holder.feedID]?.hasSections = true }
                }
            }
        }
        return try order.compactMap { id in
            guard let feed = touched[id] else { return nil }
            var after = feed.before
            after.hasSections = after.hasSections || feed.hasSections
            try store.save(&after)
            let rows = feed.rows.sorted { $0.row < $1.row }
            return RecordedWrite(
                before: feed.before, after: after,
                change: RowChange(reloaded: rows.map(\.row), reloadedIDs: rows.map(\.id)))
        }
    }

    /// One other feed's rows as the spread changed them.
    private struct Touched {
        let before: FeedRecord
        var rows: [(row: Int, id: String)] = []
        var hasSections = false

        mutating func reload(row: Int, id: String) {
            rows.append((row, id))
        }
    }
}
