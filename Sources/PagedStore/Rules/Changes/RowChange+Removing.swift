/// Following a change by the removal of some of the rows it leads to, as one change: rows found
/// undecodable while a commit's window is read go in the same batch, so no snapshot ever counts a
/// row it cannot show. Pure.
extension RowChange {
    /// This change followed by deleting the rows at `removed` (indices after this change, ascending)
    /// whose ids are `removedIDs`, as one batch that applies to the rows before this change.
    ///
    /// A removed row that this change inserted is no longer inserted; one it moved is deleted from
    /// where it was; any other is deleted at its old index, and no longer reloaded. The rows this
    /// change inserts or moves below a removed row move up by one each.
    /// - Parameter oldCount: The row count before this change.
    func followed(byRemoving removed: [Int], ids removedIDs: Set<String>, oldCount: Int) -> RowChange {
        guard !removed.isEmpty, !isFullReload else { return self }
        let removed = removed.sorted()
        let removedSet = Set(removed)
        let insertedInOrder = inserted.sorted()
        let movedInto = moved.map(\.to).sorted()
        let insertedSet = Set(inserted)
        let movedTo = Dictionary(moved.map { ($0.to, $0.from) }, uniquingKeysWith: { first, _ in first })
        // The old rows that stay in place, in order: the slots this change neither inserts nor moves
        // into hold them.
        let leaving = Set(deleted).union(moved.map(\.from))
        let staying = (0..<max(oldCount, 0)).filter { !leaving.contains($0) }
        var result = self
        result.inserted = inserted.filter { !removedSet.contains($0) }.map { $0 - Self.count(removed, below: $0) }
        result.moved = moved.filter { !removedSet.contains($0.to) }.map {
            (from: $0.from, to: $0.to - Self.count(removed, below: $0.to))
        }
        var deletedOld: [Int] = []
        for row in removed where !insertedSet.contains(row) {
            if let from = movedTo[row] {
                deletedOld.append(from)
                continue
            }
            let slot = row - Self.count(insertedInOrder, below: row) - Self.count(movedInto, below: row)
            if staying.indices.contains(slot) { deletedOld.append(staying[slot]) }
        }
        result.deleted = (deleted + deletedOld).sorted()
        result.reloaded = reloaded.filter { !deletedOld.contains($0) }
        result.reloadedIDs = reloadedIDs.filter { !removedIDs.contains($0) }
        return result
    }

    /// How many of `sorted` (ascending) are below `row`.
    private static func count(_ sorted: [Int], below row: Int) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < row { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
