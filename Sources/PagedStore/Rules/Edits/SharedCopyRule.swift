import Foundation

/// Where a copy of a shared item goes, among the feeds holding the item. Pure: no I/O.
///
/// A feed whose item type declares a shared name (``FeedItem/sharedItemType``) holds one item per
/// id with every other such feed of the store: a copy it writes (a server page, a local update, an
/// optimistic edit or its rollback) replaces the copy in the other feeds' rows, in the same
/// transaction. The copy written last wins: a page is written when it arrives, and the file's
/// writes, from every store and process, are one sequence, so the copy written last is the one
/// fetched last.
///
/// A pending optimistic update of the item, in any of the feeds, stays on top of every copy until
/// it settles: the feed that made it keeps the copy as the edit's base (what a rollback restores)
/// and shows its edits gone again on it, and every other feed shows the newest edit so.
/// A pending removal has no row, so it is no holder here: its feed's stored copy, the one a rollback
/// puts back, takes the copy all the same (``SharedItemSpread``).
enum SharedCopyRule {
    /// What one feed's row of the item becomes.
    enum Step: Equatable {
        /// The row shows `payload` (the copy, or the pending edit on top of it): its list shows a
        /// reload, if the row held something else.
        case replaceRow(SharedCopyHolder, payload: Data)
        /// The row keeps its feed's pending edit; the copy becomes the edit's base.
        case replaceEditBase(SharedCopyHolder)
    }

    /// What a write's copy does.
    struct Plan: Equatable {
        /// The steps for the other feeds' rows. Rows not named stay as they are.
        var steps: [Step] = []
        /// What the writing feed's own row must show instead of the copy it wrote (another feed's
        /// pending edit of the item), or nil.
        var writerShows: Data?
    }

    /// The plan for `copy`, given the rows of the other feeds holding the item and the pending update
    /// of the item, if a feed of the name has one.
    /// - Parameters:
    ///   - pendingEdit: What the newest pending update of the item shows: on this copy when it went
    ///     again on it (`editGoesAgain`), else as it was made.
    ///   - writerHasPendingEdit: Whether the writing feed has an edit of the item pending: its own
    ///     edits are re-applied by the write itself.
    ///   - editGoesAgain: Whether the pending updates went again on this copy (a server copy): every
    ///     feed then shows them on it, the feeds that made them too.
    static func plan(
        for copy: Data, holders: [SharedCopyHolder], pendingEdit: Data?, writerHasPendingEdit: Bool,
        editGoesAgain: Bool = false
    ) -> Plan {
        // The copy written is the pending edit itself (the edit was just made): no feed's base.
        let isTheEdit = pendingEdit == copy && !editGoesAgain
        let shown = pendingEdit ?? copy
        var plan = Plan()
        if !writerHasPendingEdit, let pendingEdit, !isTheEdit { plan.writerShows = pendingEdit }
        for holder in holders {
            switch holder.pendingEdit {
            case .update?:
                // The base is a server copy, older than any copy written now.
                if !isTheEdit { plan.steps.append(.replaceEditBase(holder)) }
            case .insert?, .remove?:
                // The app's own row until its call settles (a remove has no row, an insert no base).
                continue
            case nil:
                plan.steps.append(.replaceRow(holder, payload: shown))
            }
        }
        return plan
    }

    /// Whether a feed whose item's pending edits start with `first` keeps them all to itself: an
    /// insert makes the item the feed's own until the server answers it, and so is every edit
    /// stacked on it meanwhile. The other feeds holding the id keep their copy (nothing would put it
    /// back when the insert is rejected or dropped), their copies leave the stack's values alone, and
    /// none of its edits stands on a server copy. A stack that starts with an update or a removal
    /// stands on the server's copy: its updates show in every feed holding the item.
    static func keepsItsOwnCopy(stackStartingWith first: PendingEditRecord.Kind) -> Bool {
        first == .insert
    }

    /// The copies to spread from the ones a write logged: the last copy of each id, in the order
    /// each id was first written (a write may store one item twice: a page, then an edit of it).
    static func latestCopies(_ logged: [EncodedItem]) -> [EncodedItem] {
        var index: [String: Int] = [:]
        var latest: [EncodedItem] = []
        for copy in logged {
            if let at = index[copy.itemID] {
                latest[at] = copy
            } else {
                index[copy.itemID] = latest.count
                latest.append(copy)
            }
        }
        return latest
    }
}
