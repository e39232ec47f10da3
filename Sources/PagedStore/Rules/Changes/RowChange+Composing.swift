/// Composing two changes into one: a list that missed several writes of its feed (another process
/// wrote twice before it looked) takes them as one exact batch. Pure.
extension RowChange {
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
        // Only the rows a step names can do anything but keep their place: the others keep their
        // order through both steps, so they fill the composed batch's leftover slots as they should,
        // and are never visited (a feed of a million rows costs the rows the writes named).
        var named = Set(first.leaving + reloaded)
        for middle in second.leaving + next.reloaded {
            if let old = first.source(ofNew: middle) { named.insert(old) }
        }
        var result = RowChange()
        var insertedAt = Set(next.inserted)
        for middle in inserted {
            if let new = second.destination(ofOld: middle) { insertedAt.insert(new) }
        }
        for old in named.sorted() {
            guard let middle = first.destination(ofOld: old), let new = second.destination(ofOld: middle) else {
                result.deleted.append(old)
                continue
            }
            switch (first.moves(old) || second.moves(middle), first.reloads(old) || second.reloads(middle)) {
            case (true, true):
                result.deleted.append(old)
                insertedAt.insert(new)
            case (true, false): result.moved.append((from: old, to: new))
            case (false, true): result.reloaded.append(old)
            case (false, false): break
            }
        }
        result.inserted = insertedAt.sorted()
        var seen = Set<String>()
        result.reloadedIDs = (reloadedIDs + next.reloadedIDs).filter { seen.insert($0).inserted }
        // Two changes that fit their counts compose into one that fits; checked all the same, as
        // every change a list takes is: a batch the table rejects is worse than a full reload.
        guard Mapping(result, oldCount: oldCount, newCount: newCount) != nil else { return nil }
        return result
    }
}
