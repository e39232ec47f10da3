/// What a list reads to follow another writer's change of its feed. Pure.
///
/// A change that only reloads rows in place leaves every other row of the window where the list
/// holds it: the list reads the reloaded rows of its window and nothing else (none at all when the
/// change reloaded rows outside it, a shared copy placed deep in the feed). Any other change, or
/// one the record cannot vouch for, reads the window again and checks the change against it
/// (``RowChange/checked(from:to:)``), as does a window holding rows as the server or the app handed
/// them over: what their stored bytes decode to may differ (see ``RowKey/decodedFrom``), and a read
/// of the window decodes them, once.
///
/// Reading only the reloaded rows trusts the record for the rows it does not name, as a list trusts
/// an unchanged feed row: a row changed by a writer that does not record (`sqlite3` by hand) is
/// shown when the window is next read (a scroll, a change that moves rows), not at the next
/// reload-only write, as it was when every follow read the window.
enum WindowFollowRule {
    /// What to read.
    enum Plan: Equatable {
        /// The window again, from the row it would start at in the file's rows.
        case readWindow
        /// Only the window's rows at these offsets, ascending (maybe none), each checked to be the
        /// row the window holds there.
        case readRows([Int])
    }

    /// The plan for following `change` (nil: the record does not cover the way) from a window of
    /// `windowCount` rows at `windowStart`, holding at most `capacity`, in a feed of `heldRows`
    /// rows that now has `fileRows`; `holdsHandedOver`: whether a row of the window was not decoded
    /// from the file.
    static func plan(
        for change: RowChange?, heldRows: Int, fileRows: Int, windowStart: Int, windowCount: Int, capacity: Int,
        holdsHandedOver: Bool = false
    ) -> Plan {
        guard let change, !holdsHandedOver, !change.isFullReload, change.deleted.isEmpty, change.inserted.isEmpty,
            change.moved.isEmpty, heldRows == fileRows,
            change.reloaded.allSatisfy({ 0 <= $0 && $0 < fileRows })
        else { return .readWindow }
        // The window stays where a read of the file would put it, with as many rows.
        guard windowStart >= 0, windowStart == max(min(windowStart, fileRows - capacity), 0),
            windowCount == min(capacity, fileRows - windowStart)
        else { return .readWindow }
        let offsets = change.reloaded.map { $0 - windowStart }.filter { 0 <= $0 && $0 < windowCount }
        return .readRows(Array(Set(offsets)).sorted())
    }
}
