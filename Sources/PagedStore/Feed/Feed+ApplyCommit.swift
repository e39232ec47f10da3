import Foundation

/// Applying a commit to the feed in memory: its record, the rows held, the sections and gaps, and
/// the change it emits.
extension Feed {
    /// Takes a commit's record, updates the rows in memory, the sections and gaps, and emits.
    func apply(_ commit: Commit) throws {
        var commit = commit
        // Another writer's change comes from the file's change record: checked against the rows
        // before emitting (see ``RowChange/checked(from:to:)``). The rows before are kept (copy on
        // write) for that, and for the rare commit after which another writer wrote at once.
        let (windowBefore, rowCountBefore) = (loaded.window, loaded.record.rowCount)
        var takesRecordedChanges = commit.adoptsFile
        if commit.adoptsFile {
            activity.adopt(fileGeneration: commit.record.generation)
            // Another `Feed` may have left edits pending: they are read from the file.
            optimistic.mayHavePending = true
        }
        let previousLayout = loaded.layout
        let hadGaps = !loaded.gaps.isEmpty
        if commit.record.endReached {
            // The feed ended (a refresh replaced it with a list that ends): a next page that failed
            // from the old bottom has nothing left to retry.
            activity.forgetFailure(.nextPage)
        }
        loaded.record = commit.record
        var undecodable = commit.undecodable
        // Other writers' writes taken here, reported once the change is checked against the rows.
        var followed = commit.followed.map { [$0] } ?? []
        // A window read again after another writer committed shows that writer's rows too: its
        // recorded changes follow the commit's in the same batch, or the list takes the rows whole.
        func reload() throws -> [UndecodableRow] {
            let held = loaded.record
            let read = try reloadWindow()
            guard let later = read.changedSince else { return read.undecodable }
            activity.adopt(fileGeneration: loaded.record.generation)
            optimistic.mayHavePending = true
            let composed = later.flatMap {
                commit.change.followed(
                    by: $0, oldCount: held.rowCount - commit.change.rowDelta, middleCount: held.rowCount,
                    newCount: loaded.record.rowCount)
            }
            commit.change = composed ?? .fullReload
            takesRecordedChanges = true
            followed.append(Commit.FollowedWrite(later))
            return read.undecodable
        }
        switch commit.window {
        case .append(let rows, let oldCount): loaded.window.append(rows, oldCount: oldCount)
        case .prepend(let rows, let reloads):
            for reload in reloads { loaded.window.reload(row: reload.row, item: reload.item, key: reload.key) }
            loaded.window.prepend(rows)
        case .reload: undecodable = try reload()
        case .read(let rows, let start):
            loaded.window.start = start
            loaded.window.rows = rows
        }
        if loaded.window.end > loaded.record.rowCount { undecodable += try reload() }
        // Rows the window met that do not decode go in this change, as deletions: no snapshot
        // counts a row it cannot show. Each round removes rows, so it ends.
        var removedAny = false
        while !undecodable.isEmpty {
            let rowsBefore = loaded.record.rowCount
            let (removed, foreign) = try removeUndecodable(undecodable)
            if foreign {
                // Another `Feed` wrote meanwhile: the rows shown are not the ones removed from.
                activity.adopt(fileGeneration: loaded.record.generation)
                optimistic.mayHavePending = true
                commit.change = .fullReload
            }
            guard !removed.isEmpty || foreign else { break }
            removedAny = true
            commit.change = commit.change.followed(
                byRemoving: removed.map(\.index), ids: Set(removed.map(\.row.itemID)),
                oldCount: rowsBefore - commit.change.rowDelta)
            undecodable = try reload()
        }
        // Gaps move only when there are some, and appear only from a keepGap refresh (rows on top);
        // sections exist only for feeds with section keys. Anything else needs no read at all, which
        // keeps every plain next page and refresh free of an extra transaction.
        let gapsMayChange =
            hadGaps || removedAny || commit.change.isFullReload
            || (policy.gapPolicy == .keepGap && commit.change.inserted.first == 0)
        if loaded.record.hasSections || gapsMayChange {
            try queue.read { store in
                loaded.layout = try Self.layout(of: loaded.record, in: store)
                if gapsMayChange { loaded.gaps = try Self.gaps(of: loaded.record, in: store) }
            }
            activity.keepGaps(Set(loaded.gaps.map(\.record.id)))
        } else {
            loaded.layout = SectionLayout(unsectionedRowCount: loaded.record.rowCount)
        }
        if takesRecordedChanges {
            let before = RowChange.ShownRows(
                ids: windowBefore.rows.keys.map(\.id), start: windowBefore.start, count: rowCountBefore)
            let checked = commit.change.checked(from: before, to: shownRows)
            // A record that contradicts the rows (edited in the file) is no change to emit, nor to
            // report: the list took the rows whole.
            if checked.isFullReload && !commit.change.isFullReload { followed = [.whole] }
            commit.change = checked
        }
        emit(commit.change, previousLayout: previousLayout)
        for write in followed { reportFollowed(write) }
    }

    /// The ids of the rows the feed holds in memory, where they start and among how many rows.
    var shownRows: RowChange.ShownRows {
        RowChange.ShownRows(
            ids: loaded.window.rows.keys.map(\.id), start: loaded.window.start, count: loaded.record.rowCount)
    }
}
