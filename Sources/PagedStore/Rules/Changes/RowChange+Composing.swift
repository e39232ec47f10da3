/// Composing two changes into one: a list that missed several writes of its feed (another process
/// wrote twice before it looked) takes them as one exact batch. Pure.
extension RowChange {
    /// Where each row of a change goes, read the way a batch update reads the change: deleted rows
    /// and move sources leave, insertions and move destinations arrive, and the other rows keep their
    /// order in the slots left over.
    struct Mapping: Equatable {
        /// The new index of each old row; nil for a deleted one.
        var destination: [Int?]
        /// Whether each old row moved.
        var moved: [Bool]
        /// Whether each new row was inserted.
        var inserted: [Bool]
        /// Whether each old row's item changed: reloaded in place (a changed row that moved is a
        /// deletion and an insertion, so it does not survive as a row here).
        var changed: [Bool]

        /// How `change` maps `oldCount` rows to `newCount`, or nil when it does not fit them (an
        /// index out of range or named twice, or counts that do not add up): a record that lies.
        init?(_ change: RowChange, oldCount: Int, newCount: Int) {
            guard !change.isFullReload, oldCount >= 0, newCount >= 0 else { return nil }
            var leaving = [Bool](repeating: false, count: oldCount)
            var arriving = [Bool](repeating: false, count: newCount)
            destination = [Int?](repeating: nil, count: oldCount)
            moved = leaving
            inserted = arriving
            changed = leaving
            func leave(_ row: Int) -> Bool {
                guard leaving.indices.contains(row), !leaving[row] else { return false }
                leaving[row] = true
                return true
            }
            func arrive(_ row: Int) -> Bool {
                guard arriving.indices.contains(row), !arriving[row] else { return false }
                arriving[row] = true
                return true
            }
            for row in change.deleted { guard leave(row) else { return nil } }
            for row in change.inserted {
                guard arrive(row) else { return nil }
                inserted[row] = true
            }
            for move in change.moved {
                guard leave(move.from), arrive(move.to) else { return nil }
                destination[move.from] = move.to
                moved[move.from] = true
            }
            for row in change.reloaded {
                guard changed.indices.contains(row), !leaving[row], !changed[row] else { return nil }
                changed[row] = true
            }
            var slot = 0
            for row in 0..<oldCount where !leaving[row] {
                while slot < newCount && arriving[slot] { slot += 1 }
                guard slot < newCount else { return nil }
                destination[row] = slot
                slot += 1
            }
            while slot < newCount && arriving[slot] { slot += 1 }
            guard slot == newCount else { return nil }
        }
    }

    /// This change followed by `next`, as one change that applies to the rows before this one, or
    /// nil when either does not fit its counts. A full reload in either is a full reload.
    ///
    /// Rows that moved in either step move; the rest keep their order through both, so they fill the
    /// slots left over in order, as a batch reads them. A row whose item changed in either step is
    /// reloaded, or, if it also moved, deleted and inserted (a batch cannot reload a moved row).
    /// ``reloadedIDs`` are both steps', first step first: ids of rows a step deleted stay, and the
    /// caller keeps only those of rows it shows before and after.
    /// - Parameters:
    ///   - oldCount: The row count before this change.
    ///   - middleCount: The row count after this change, before `next`.
    ///   - newCount: The row count after `next`.
    func followed(by next: RowChange, oldCount: Int, middleCount: Int, newCount: Int) -> RowChange? {
        if isFullReload || next.isFullReload { return .fullReload }
        guard let first = Mapping(self, oldCount: oldCount, newCount: middleCount),
            let second = Mapping(next, oldCount: middleCount, newCount: newCount)
        else { return nil }
        var result = RowChange()
        var insertedAt = second.inserted
        for (middle, wasInserted) in first.inserted.enumerated() where wasInserted {
            if let new = second.destination[middle] { insertedAt[new] = true }
        }
        for old in 0..<oldCount {
            guard let middle = first.destination[old], let new = second.destination[middle] else {
                result.deleted.append(old)
                continue
            }
            let changed = first.changed[old] || second.changed[middle]
            let moved = first.moved[old] || second.moved[middle]
            switch (moved, changed) {
            case (true, true):
                result.deleted.append(old)
                insertedAt[new] = true
            case (true, false): result.moved.append((from: old, to: new))
            case (false, true): result.reloaded.append(old)
            case (false, false): break
            }
        }
        result.inserted = insertedAt.indices.filter { insertedAt[$0] }
        var seen = Set<String>()
        result.reloadedIDs = (reloadedIDs + next.reloadedIDs).filter { seen.insert($0).inserted }
        // Rows that stayed in both steps keep their order, so the batch's leftover slots are theirs;
        // a mapping that disagrees means a step lied about its rows.
        guard let check = Mapping(result, oldCount: oldCount, newCount: newCount) else { return nil }
        for old in 0..<oldCount where !check.moved[old] {
            guard let destination = check.destination[old] else { continue }
            guard let middle = first.destination[old], second.destination[middle] == destination else { return nil }
        }
        return result
    }
}
