/// Checking a change another writer recorded against the rows it is applied to. Pure.
extension RowChange {
    /// The rows of one state of a feed that a list holds: the ids of a run of them, and where it
    /// starts among how many.
    struct ShownRows {
        var ids: [String]
        var start: Int
        var count: Int
    }

    /// This change as a list that shows `before` and then `after` takes another writer's change:
    /// one full reload when it does not agree with the rows (``agrees(from:to:)``), and otherwise
    /// with only the ``reloadedIDs`` of rows shown in both (a change composed of several writes keeps
    /// the ids of rows a later write deleted, and a diffable data source raises on an id it lacks),
    /// and with every id it deletes and inserts again: a change composed of one write that deleted
    /// an item and a later one that brought it back elsewhere (with new content, as likely as not)
    /// cannot name it, and a diffable data source keeps the cell of an id it still has.
    func checked(from before: ShownRows, to after: ShownRows) -> RowChange {
        guard agrees(from: before, to: after) else { return .fullReload }
        let shownBefore = Set(before.ids)
        let shownAfter = Set(after.ids)
        var change = self
        change.reloadedIDs = reloadedIDs.filter { shownBefore.contains($0) && shownAfter.contains($0) }
        return change.namingReinserted(from: before, to: after)
    }

    /// This change with every id it deletes and inserts again among its ``reloadedIDs``: a write
    /// that replaces a row by another copy of its item (a confirmed insert taking the server's
    /// place), or one composed of a deletion and a later insertion, may not name it, and a diffable
    /// data source keeps the cell of an id it still has. Only the deleted rows are looked at: most
    /// changes delete none.
    func namingReinserted(from before: ShownRows, to after: ShownRows) -> RowChange {
        guard !deleted.isEmpty else { return self }
        let shownAfter = Set(after.ids)
        var change = self
        for row in deleted where before.ids.indices.contains(row - before.start) {
            let id = before.ids[row - before.start]
            if shownAfter.contains(id), !change.reloadedIDs.contains(id) { change.reloadedIDs.append(id) }
        }
        return change
    }

    /// Whether this change takes the rows `before` shows to those `after` shows: every row of
    /// `before` that it keeps lands on the row of `after` with the same id, where `after` shows it.
    ///
    /// The change record is in the file, and anything that writes the file can make it lie with
    /// counts that add up (`sqlite3`, a damaged record that still decodes); the rows read with the
    /// record in the same transaction are the truth, and a change that contradicts them would make a
    /// table show one row twice and lose another. A full reload always agrees.
    func agrees(from before: ShownRows, to after: ShownRows) -> Bool {
        guard !isFullReload else { return true }
        guard let mapping = Mapping(self, oldCount: before.count, newCount: after.count) else { return false }
        for (offset, id) in before.ids.enumerated() {
            let old = before.start + offset
            guard 0 <= old, old < mapping.oldCount else { return false }
            guard let new = mapping.destination(ofOld: old) else { continue }
            let shown = new - after.start
            if after.ids.indices.contains(shown), after.ids[shown] != id { return false }
        }
        return true
    }
}
