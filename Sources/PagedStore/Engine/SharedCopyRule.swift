/// Where a copy of a shared item goes, among the other feeds holding the item. Pure: no I/O.
///
/// A feed whose item type declares a shared name (``FeedItem/sharedItemType``) holds one item per
/// id with every other such feed of the store: a copy it writes (a server page, a local update)
/// replaces the copy in the other feeds' rows, in the same transaction. What is fetched later is
/// newer; copies are stamped when they are written, so a copy never replaces one written after it
/// (another process's clock, a file edited by hand). A pending optimistic edit stays on top: the
/// copy becomes the server value under it, which a rollback restores. A pending removal has no row,
/// so it is no holder here: its feed's stored copy, the one a rollback puts back, takes the copy all
/// the same (``SharedItemSpread``).
enum SharedCopyRule {
    /// What happens to one other feed's row of the item.
    enum Step: Equatable {
        /// The row takes the copy (its list shows a reload, if the payload differs).
        case replaceRow(SharedCopyHolder)
        /// The row keeps the pending edit's payload; the copy becomes the edit's base.
        case replaceEditBase(SharedCopyHolder)
    }

    /// The steps for a copy written at `stamp` (ms since 1970), given the rows of the other feeds
    /// holding the item. Holders not named keep their row as it is.
    static func steps(forCopyAt stamp: Int64, holders: [SharedCopyHolder]) -> [Step] {
        holders.compactMap { holder in
            switch holder.pendingEdit {
            case .update?:
                // The base is a server copy, older than any copy written now, whatever the row's stamp
                // (the edit's own) says.
                return .replaceEditBase(holder)
            case .insert?, .remove?:
                // The app's own row until its call settles (a remove has no row, an insert no base).
                return nil
            case nil:
                return holder.copiedAt <= stamp ? .replaceRow(holder) : nil
            }
        }
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
