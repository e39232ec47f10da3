/// Where each row of a change goes. Pure.
extension RowChange {
    /// Where each row of a change goes, read the way a batch update reads the change: deleted rows
    /// and move sources leave, insertions and move destinations arrive, and the other rows keep their
    /// order in the slots left over (``RowSurvivors``).
    ///
    /// It keeps only the rows the change names, never one entry per row of the feed: a list that
    /// follows a one-row write of a million-row feed pays for one row, and a record edited to claim
    /// a trillion rows costs nothing to refuse.
    struct Mapping {
        let oldCount: Int
        let newCount: Int
        private let survivors: RowSurvivors
        private let deleted: Set<Int>
        private let inserted: Set<Int>
        /// The new row of each moved previous row, and the previous row of each move destination.
        private let movedTo: [Int: Int]
        private let movedFrom: [Int: Int]
        /// The previous rows reloaded in place.
        private let changed: Set<Int>

        /// How `change` maps `oldCount` rows to `newCount`, or nil when it does not fit them (an
        /// index out of range or named twice, a reload of a row that leaves, or counts that do not
        /// add up): a record that lies.
        init?(_ change: RowChange, oldCount: Int, newCount: Int) {
            guard !change.isFullReload, let survivors = RowSurvivors(change, old: oldCount, new: newCount) else {
                return nil
            }
            let changed = Set(change.reloaded)
            guard changed.count == change.reloaded.count,
                changed.allSatisfy({ !survivors.leaves($0) })
            else { return nil }
            self.oldCount = oldCount
            self.newCount = newCount
            self.survivors = survivors
            self.changed = changed
            deleted = Set(change.deleted)
            inserted = Set(change.inserted)
            movedTo = Dictionary(change.moved.map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
            movedFrom = Dictionary(change.moved.map { ($0.to, $0.from) }, uniquingKeysWith: { first, _ in first })
        }

        /// The new row of previous row `old`, or nil when the change deletes it.
        func destination(ofOld old: Int) -> Int? {
            if deleted.contains(old) { return nil }
            if let new = movedTo[old] { return new }
            return survivors.newRow(ofRank: survivors.rank(ofOld: old))
        }

        /// The previous row of new row `new`, or nil when the change inserts it.
        func source(ofNew new: Int) -> Int? {
            if inserted.contains(new) { return nil }
            if let old = movedFrom[new] { return old }
            return survivors.oldRow(ofRank: survivors.rank(ofNew: new))
        }

        /// Whether previous row `old` moves.
        func moves(_ old: Int) -> Bool { movedTo[old] != nil }

        /// Whether previous row `old` is reloaded in place.
        func reloads(_ old: Int) -> Bool { changed.contains(old) }

        /// Whether new row `new` is inserted.
        func inserts(_ new: Int) -> Bool { inserted.contains(new) }

        /// The previous rows that leave their place, ascending: deletions and move sources.
        var leaving: [Int] { survivors.gone }
    }
}
