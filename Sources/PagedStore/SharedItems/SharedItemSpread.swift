import Foundation

/// Writes the copies a feed's write stored into every other feed holding the same shared items, in
/// the same transaction, as ``SharedCopyRule`` decides; each feed written this way gets its own
/// recorded change (a reload at its own row), so that its open lists follow.
enum SharedItemSpread {
    /// What spreading a write's copies did.
    struct Spread {
        /// What each other feed's rows went through, for the change record.
        var written: [RecordedWrite] = []
        /// Whether rows of the writing feed now show another feed's pending edit instead of the
        /// copy the write stored: its window must be read again.
        var rewroteWriterRows = false
    }

    /// Spreads `copies`, the items' new copies a write of `feed` stored (a server page, a local or
    /// optimistic update, a rollback's server copy), when its items are shared. The one entry for
    /// every writer (``FeedWriter``, ``OutboxWriter``, `pagedb seed`), each of which says which of
    /// the rows it wrote are copies: the rest stay the feed's own.
    /// - Parameter carries: How the feeds open in this process apply their pending edits' changes
    ///   again (see ``LiveFeeds/carry(forKey:in:)``); an edit no open feed knows goes again by what
    ///   it changed.
    static func spread(
        _ copies: [EncodedItem], from feed: FeedRecord, in store: PageStore,
        carries: (String) -> PendingEditStack.Carry? = { _ in nil }
    ) throws -> Spread {
        guard let type = feed.sharedType, !copies.isEmpty else { return Spread() }
        return try spread(copies, sharedAs: type, from: feed.id, in: store, carries: carries)
    }

    /// Spreads `copies` from the feed `writer` to the feeds sharing their items as `type`.
    static func spread(
        _ copies: [EncodedItem], sharedAs type: String, from writer: Int64, in store: PageStore,
        carries: (String) -> PendingEditStack.Carry? = { _ in nil }
    ) throws -> Spread {
        var result = Spread()
        var touched: [Int64: Touched] = [:]
        var order: [Int64] = []
        /// Makes the row of `holder` show `payload`, and notes its reload for the change record.
        func show(_ payload: Data, section: String?, at holder: SharedCopyHolder, of copy: EncodedItem) throws {
            guard
                try store.replaceSharedCopy(
                    copy.itemID, showing: payload, section: section, in: holder.feedID, at: holder.position),
                let feed = try touched[holder.feedID]?.before ?? store.feed(id: holder.feedID)
            else { return }
            if touched[holder.feedID] == nil { order.append(holder.feedID) }
            let row = try store.rowIndex(ofPosition: holder.position, in: feed)
            touched[holder.feedID, default: Touched(before: feed)].rows.append((row, copy.itemID))
            if section != nil { touched[holder.feedID]?.hasSections = true }
        }
        let pending = try store.pendingSharedEdits(sharedAs: type)
        // A feed alone with its shared type (a first feed, W1S) has no holder to look up per copy.
        let othersHold = try store.hasOtherFeeds(sharedAs: type, except: writer)
        for copy in SharedCopyRule.latestCopies(copies) {
            if var removing = pending.removals[copy.itemID] {
                removing.remove(writer)
                try store.replacePendingRemovalBases(copy, inFeeds: removing)
            }
            let holders = othersHold ? try store.sharedHolders(of: copy.itemID, sharedAs: type, except: writer) : []
            let edit = pending.updates[copy.itemID]
            // A server copy (not the edit just made): the other feeds' pending updates go again on
            // it, also those of a feed that removed the item since (its removal puts back the
            // update's value), and what the newest shows on it is what every feed shows.
            var rebased: [Int64: PendingEditStack.Shown] = [:]
            if let edit, edit.edited != copy.payload {
                for feedID in edit.feeds.sorted() where feedID != writer {
                    rebased[feedID] = try rebasePendingEdits(of: copy, inFeed: feedID, store, carries)
                }
            }
            let newest = edit.flatMap { rebased[$0.newest] }
            let plan = SharedCopyRule.plan(
                for: copy.payload, holders: holders, pendingEdit: newest?.payload ?? edit?.edited,
                writerHasPendingEdit: edit?.feeds.contains(writer) ?? false, editGoesAgain: !rebased.isEmpty)
            if let shown = plan.writerShows {
                let rewritten = try store.replaceSharedCopy(
                    copy.itemID, showing: shown, section: newest?.section ?? copy.section, in: writer)
                result.rewroteWriterRows = result.rewroteWriterRows || rewritten
            }
            for step in plan.steps {
                switch step {
                case .replaceEditBase(let holder):
                    // Its row shows its own edits gone again on the copy.
                    if let shown = rebased[holder.feedID] {
                        try show(shown.payload, section: shown.section, at: holder, of: copy)
                    }
                case .replaceRow(let holder, let payload):
                    try show(payload, section: newest?.section ?? copy.section, at: holder, of: copy)
                }
            }
        }
        result.written = try order.compactMap { id in
            guard let feed = touched[id] else { return nil }
            var after = feed.before
            after.hasSections = after.hasSections || feed.hasSections
            try store.save(&after)
            let rows = feed.rows.sorted { $0.row < $1.row }
            return RecordedWrite(
                before: feed.before, after: after,
                change: RowChange(reloaded: rows.map(\.row), reloadedIDs: rows.map(\.id)))
        }
        return result
    }

    /// Makes `copy` the server's copy under another feed's pending edits of the item: each goes again
    /// on it (see ``PendingEditStack/rebased(_:onto:section:carry:)``), with its change when the feed
    /// that made it is open in this process, else by what it changed, so that a rollback of any of
    /// them restores this copy, not an older one.
    /// - Returns: What the feed's last update shows on the copy (what its row shows, or what its
    ///   removal puts back), or nil when its first edit is not an update.
    private static func rebasePendingEdits(
        of copy: EncodedItem, inFeed feedID: Int64, _ store: PageStore, _ carries: (String) -> PendingEditStack.Carry?
    ) throws -> PendingEditStack.Shown? {
        guard let feed = try store.feed(id: feedID) else { return nil }
        let stack = try store.pendingEdits(ofItem: copy.itemID, in: feed)
        guard stack.first?.kind == .update else { return nil }
        let rebased = PendingEditStack.rebasedTryingCarry(
            stack, onto: copy.payload, section: copy.section, carry: carries(feed.key) ?? { _, _ in nil })
        for edit in rebased.edits { try store.savePendingEdit(edit, in: feed) }
        guard let last = rebased.edits.last, last.kind == .remove else { return rebased.shown }
        return last.base.map { ($0, last.baseSection) }
    }

    /// Undoes `edits`, detached updates of `feed` that went unsent or were rejected, in the other
    /// feeds sharing their items: each was spread to them while it showed, but a detached edit is no
    /// longer on top of their copies, so only the rows that still show its value (and have no edit
    /// of their own pending) show its base again, and a newer copy another feed fetched since stays;
    /// another feed's pending updates made on its value go again on its base, as on a rollback.
    /// An item's later edits are undone first, each back to the value the one before it showed; the
    /// updates stacked on an insert among `edits` were never spread, and are left alone.
    /// - Parameter carries: How the feeds open in this process carry their edits' changes (see
    ///   ``spread(_:sharedAs:from:in:carries:)``).
    /// - Returns: What it changed of the other feeds, for the change record.
    static func undo(
        detached edits: [PendingEditRecord], from feed: FeedRecord, in store: PageStore,
        carries: (String) -> PendingEditStack.Carry? = { _ in nil }
    ) throws -> [RecordedWrite] {
        guard let type = feed.sharedType else { return [] }
        var written: [RecordedWrite] = []
        /// Makes the other feed's row at `position` show `value`, with a reload for its lists.
        func show(_ value: PendingEditStack.Shown, of itemID: String, in other: FeedRecord, at position: Int64) throws {
            guard
                try store.replaceSharedCopy(
                    itemID, showing: value.payload, section: value.section, in: other.id, at: position)
            else { return }
            let row = try store.rowIndex(ofPosition: position, in: other)
            var after = other
            after.hasSections = after.hasSections || value.section != nil
            try store.save(&after)
            written.append(
                RecordedWrite(before: other, after: after, change: RowChange(reloaded: [row], reloadedIDs: [itemID])))
        }
        let spread = PendingEditStack.stacks(edits).filter { stack in
            stack.first.map { !SharedCopyRule.keepsItsOwnCopy(stackStartingWith: $0.kind) } ?? false
        }
        // The undo rebases the other feeds' updates, never adds or removes one: one read serves all.
        let pending = try store.pendingSharedEdits(sharedAs: type)
        for edit in spread.joined().sorted(by: { $0.step > $1.step }) where edit.kind == .update {
            guard let base = edit.base, let shown = edit.edited else { continue }
            let restored = EncodedItem(itemID: edit.itemID, section: edit.baseSection, payload: base)
            for feedID in (pending.updates[edit.itemID]?.feeds ?? []).sorted() where feedID != feed.id {
                guard let other = try store.feed(id: feedID),
                    try store.pendingEdits(ofItem: edit.itemID, in: other).first?.base == shown,
                    let value = try rebasePendingEdits(of: restored, inFeed: feedID, store, carries),
                    let row = try store.items(withIDs: [edit.itemID], in: other)[edit.itemID]
                else { continue }
                try show(value, of: edit.itemID, in: other, at: row.position)
            }
            for holder in try store.sharedHolders(of: edit.itemID, sharedAs: type, except: feed.id)
            where holder.pendingEdit == nil {
                guard let other = try store.feed(id: holder.feedID),
                    try store.items(withIDs: [edit.itemID], in: other)[edit.itemID]?.payload == shown
                else { continue }
                try show((base, edit.baseSection), of: edit.itemID, in: other, at: holder.position)
            }
        }
        return written
    }

    /// One other feed's rows as the spread changed them.
    private struct Touched {
        let before: FeedRecord
        var rows: [(row: Int, id: String)] = []
        var hasSections = false
    }
}
