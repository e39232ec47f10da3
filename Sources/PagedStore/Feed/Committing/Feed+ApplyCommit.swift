import Foundation

/// Applying a commit to the feed in memory: its record, the rows held, the sections and gaps, and
/// the change it emits.
extension Feed {
    /// What applying a commit has gathered on the way to emitting: the change, and the other
    /// writers' writes it took.
    private struct AppliedChange {
        /// The change to emit: the commit's, with what was found while applying it.
        var change: RowChange
        /// Whether the change holds changes recorded by other writers, checked against the rows
        /// before it is emitted.
        var takesRecordedChanges: Bool
        /// Other writers' writes taken here, reported once the change is checked against the rows.
        var followed: [Commit.FollowedWrite]
    }

    /// Takes a commit's record, updates the rows in memory, the sections and gaps, and emits.
    func apply(_ commit: Commit) throws {
        // Another writer's change comes from the file's change record: checked against the rows
        // before emitting (see ``RowChange/checked(from:to:)``). The rows before are kept (copy on
        // write) for that, and for the rare commit after which another writer wrote at once.
        let (windowBefore, rowCountBefore) = (loaded.window, loaded.record.rowCount)
        let previousLayout = loaded.layout
        let hadGaps = !loaded.gaps.isEmpty
        takeRecord(of: commit)
        var applied = AppliedChange(
            change: commit.change, takesRecordedChanges: commit.adoptsFile,
            followed: commit.followed.map { [$0] } ?? [])
        let undecodable = try updateWindow(commit.window, meeting: commit.undecodable, applying: &applied)
        let removedAny = try removeUndecodableRows(
            undecodable, inARefreshedPage: commit.refreshedPage != nil, applying: &applied)
        // A keepGap page whose rows the pending edits took away again shows no row, and still wrote
        // its gap: in this feed's write, or in another writer's that this one takes.
        let pageMayBeHidden = policy.gapPolicy == .keepGap && (commit.replayedEdits || commit.adoptsFile)
        try readLayoutAndGaps(
            hadGaps: hadGaps, gapsMayMoveUnseen: removedAny || pageMayBeHidden, change: applied.change,
            rowCountBefore: rowCountBefore)
        // Most commits (a page, a refresh's merge) delete no row: they pay for neither list of ids.
        if applied.takesRecordedChanges || !applied.change.deleted.isEmpty {
            let before = RowChange.ShownRows(
                ids: windowBefore.rows.keys.map(\.id), start: windowBefore.start, count: rowCountBefore)
            if applied.takesRecordedChanges {
                let checked = applied.change.checked(from: before, to: shownRows)
                // A record that contradicts the rows (edited in the file) is no change to emit, nor
                // to report: the list took the rows whole.
                if checked.isFullReload && !applied.change.isFullReload {
                    applied.followed = [.whole(reason: Commit.FollowedWrite.contradictsRows)]
                }
                applied.change = checked
            } else {
                applied.change = applied.change.namingReinserted(from: before, to: shownRows)
            }
        }
        emit(applied.change, previousLayout: previousLayout)
        for write in applied.followed { reportFollowed(write) }
        if let mark = commit.writeMark { loaded.writeMark = mark }
    }

    /// The ids of the rows the feed holds in memory, where they start and among how many rows.
    var shownRows: RowChange.ShownRows {
        RowChange.ShownRows(
            ids: loaded.window.rows.keys.map(\.id), start: loaded.window.start, count: loaded.record.rowCount)
    }

    /// Takes the commit's record, with what it says of the feed's activity.
    private func takeRecord(of commit: Commit) {
        if commit.adoptsFile { adoptFileWrite(generation: commit.record.generation) }
        if commit.record.endReached {
            // The feed ended (a refresh replaced it with a list that ends): a next page that failed
            // from the old bottom has nothing left to retry.
            activity.forgetFailure(.nextPage)
        }
        loaded.record = commit.record
    }

    /// Takes another `Feed`'s write found in the file: its generation, and the edits it may have left
    /// pending (they are read from the file).
    private func adoptFileWrite(generation: Int64) {
        activity.adopt(fileGeneration: generation)
        optimistic.mayHavePending = true
    }

    /// Updates the rows held as the commit says, reading them again when it says so or when they
    /// reach past the feed's rows.
    /// - Parameter met: Rows the write met that do not decode.
    /// - Returns: The rows met or read that do not decode.
    private func updateWindow(
        _ update: Commit.WindowUpdate, meeting met: [UndecodableRow], applying applied: inout AppliedChange
    ) throws -> [UndecodableRow] {
        var undecodable = met
        switch update {
        case .append(let rows, let oldCount): loaded.window.append(rows, oldCount: oldCount)
        case .prepend(let rows, let reloads):
            for reload in reloads { loaded.window.reload(row: reload.row, item: reload.item, key: reload.key) }
            loaded.window.prepend(rows)
        case .reload: undecodable = try rereadWindow(applying: &applied)
        case .read(let rows, let start):
            loaded.window.start = start
            loaded.window.rows = rows
        }
        if loaded.window.end > loaded.record.rowCount { undecodable += try rereadWindow(applying: &applied) }
        return undecodable
    }

    /// Reads the window again (``reloadWindow()``). A window read again after another writer
    /// committed shows that writer's rows too: its recorded changes follow the commit's in the same
    /// batch, or the list takes the rows whole.
    /// - Returns: The rows read that do not decode.
    private func rereadWindow(applying applied: inout AppliedChange) throws -> [UndecodableRow] {
        let held = loaded.record
        let read = try reloadWindow()
        guard let later = read.changedSince else { return read.undecodable }
        adoptFileWrite(generation: loaded.record.generation)
        let composed = later.flatMap {
            applied.change.followed(
                by: $0, oldCount: held.rowCount - applied.change.rowDelta, middleCount: held.rowCount,
                newCount: loaded.record.rowCount)
        }
        applied.change = composed ?? .fullReload
        applied.takesRecordedChanges = true
        applied.followed.append(
            later != nil && composed == nil
                ? .whole(reason: Commit.FollowedWrite.notComposed)
                : Commit.FollowedWrite(later, from: held, to: loaded.record))
        return read.undecodable
    }

    /// Removes the rows the window met that do not decode, in the same change, as deletions: no
    /// snapshot counts a row it cannot show. Each round removes rows, so it ends.
    /// - Returns: Whether any row was removed.
    private func removeUndecodableRows(
        _ met: [UndecodableRow], inARefreshedPage: Bool, applying applied: inout AppliedChange
    ) throws -> Bool {
        var undecodable = met
        var removedAny = false
        while !undecodable.isEmpty {
            let rowsBefore = loaded.record.rowCount
            let (removed, foreign) = try removeUndecodable(undecodable, inARefreshedPage: inARefreshedPage)
            if foreign {
                // Another `Feed` wrote meanwhile: the rows shown are not the ones removed from.
                adoptFileWrite(generation: loaded.record.generation)
                applied.change = .fullReload
            }
            guard !removed.isEmpty || foreign else { break }
            removedAny = true
            applied.change = applied.change.followed(
                byRemoving: removed.map(\.index), ids: Set(removed.map(\.row.itemID)),
                oldCount: rowsBefore - applied.change.rowDelta)
            undecodable = try rereadWindow(applying: &applied)
        }
        return removedAny
    }

    /// Reads the sections and gaps again where the commit may have changed them.
    /// - Parameter gapsMayMoveUnseen: Whether gaps may have changed in ways the change does not
    ///   show: undecodable rows removed, or a page whose rows the pending edits took away again.
    private func readLayoutAndGaps(
        hadGaps: Bool, gapsMayMoveUnseen: Bool, change: RowChange, rowCountBefore: Int
    ) throws {
        // Gaps move only when there are some, and appear only from a keepGap refresh, which inserts
        // rows above others (on top, or a page whose end does not reach the rows below), or whose
        // rows the pending edits took away again (no row shows: `gapsMayMoveUnseen`); sections
        // exist only for feeds with section keys. Anything else needs no read at all, which keeps
        // every plain next page (rows appended below the others) and replace-policy refresh free of
        // an extra transaction.
        let insertsAboveOthers = change.inserted.first.map { $0 < rowCountBefore - change.deleted.count } ?? false
        let gapsMayChange =
            hadGaps || gapsMayMoveUnseen || change.isFullReload || (policy.gapPolicy == .keepGap && insertsAboveOthers)
        guard loaded.record.hasSections || gapsMayChange else {
            loaded.layout = SectionLayout(unsectionedRowCount: loaded.record.rowCount)
            return
        }
        try queue.read { store in
            loaded.layout = try Self.layout(of: loaded.record, in: store)
            if gapsMayChange { loaded.gaps = try Self.gaps(of: loaded.record, in: store) }
        }
        activity.keepGaps(Set(loaded.gaps.map(\.record.id)))
    }
}
