/// The rule for a page newer than the cached head (a refresh by the newer cursor): which of its
/// items go on top. Pure: ``Feed`` reads the facts and carries the plan out.
///
/// The page lists what is newer than the feed's newer cursor, newest first. The items the feed
/// lacks go on top, in the page's order; rows it has that the page lists after them are the head
/// again (the cursor lagged behind it) and stay, proving what the page skipped there. A row it has
/// that the page lists before an item new to the feed moved up (a post bumped with a new place in
/// the list): it goes on top with them, in the page's order, and its old row goes. Left where it
/// was, it would hold back every new item listed after it, and the cursor, moving past them, would
/// never ask for them again.
///
/// The items of queued removals, which the feed hides, count as neither: listed before new items
/// they go on top with them, to be hidden again there; listed only after the head's rows, they are
/// left to the pages that reach their places.
enum NewerPageRule {
    /// What goes on top.
    struct Plan: Equatable {
        /// The page offsets of the items that go on top, in page order (`moved` among them).
        var onTop: [Int]
        /// The page offsets of rows the feed has elsewhere that move to the top.
        var moved: [Int]
        /// The page offsets of hidden items among `onTop`: they moved up too, and their removals'
        /// places go with them (a rejected one goes back where the page listed it).
        var hiddenOnTop: [Int] = []
        /// The page offsets of hidden items among `onTop` when the page lists an item new to the
        /// feed too: listed among new items, they moved up (bumped) and left their places, which the
        /// removals that named them take over. A page of hidden items and rows only is a lagging
        /// cursor listing the head again, in its place: nothing moved.
        var hiddenBumped: [Int] = []
    }

    /// Plans a newer page listing `itemIDs`, for a feed with rows for the ids in `rows` and queued
    /// removals hiding the items in `hidden` (read only when ``needsHiddenItems(itemIDs:rows:)``).
    /// In a list ordered by activity every item the page lists is newer than the rows under the
    /// cursor, the rows the feed has among them moved up: all go on top.
    static func plan(
        itemIDs: [String], rows: Set<String>, hidden: Set<String> = [], order: FeedPolicy.ItemOrder = .fixed
    ) -> Plan {
        let lacking = itemIDs.prefix { !rows.contains($0) }.count
        let lastNew = itemIDs.lastIndex { !rows.contains($0) && !hidden.contains($0) }
        let count = order == .byActivity ? itemIDs.count : max(lacking, lastNew.map { $0 + 1 } ?? 0)
        var seen: Set<String> = []
        var plan = Plan(onTop: [], moved: [])
        var listsANewItem = false
        for offset in 0..<count where seen.insert(itemIDs[offset]).inserted {
            plan.onTop.append(offset)
            let id = itemIDs[offset]
            if rows.contains(id) { plan.moved.append(offset) }
            if hidden.contains(id) {
                plan.hiddenOnTop.append(offset)
            } else if !rows.contains(id) {
                listsANewItem = true
            }
        }
        if listsANewItem { plan.hiddenBumped = plan.hiddenOnTop }
        return plan
    }

    /// Whether the plan depends on the hidden items: the page lists an item the feed has no row
    /// for, which may be one of them (where it goes on top, or whether it does, and where its
    /// removal's place goes).
    static func needsHiddenItems(itemIDs: [String], rows: Set<String>) -> Bool {
        itemIDs.contains { !rows.contains($0) }
    }
}
