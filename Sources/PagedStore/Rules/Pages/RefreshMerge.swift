/// Decides how a refreshed first page merges into the cached rows. Pure: no I/O, no state.
///
/// Overlap is decided by proof, never guessed from the page size: an id the new page shares with
/// the cached head. The merged list is the new page, in the server's order, followed by the cached
/// rows below the deepest shared row.
enum RefreshMerge {
    /// What a refresh does.
    enum Plan: Equatable {
        /// The page shares no id with the cached head: the feed's gap policy decides.
        case noOverlap
        /// The common case: new items on top of an unchanged cached head. The cached rows keep their
        /// positions; `newItems` go above them and `reloads` change payloads in place.
        case prepend(newItems: [EncodedItem], reloads: [(row: Int, item: EncodedItem)])
        /// The server reordered or dropped rows of the head: the rows down to `throughPosition` are
        /// replaced by the page. `relocated` are shared ids found deeper than the head read, removed
        /// from their old rows first so that no id is ever twice in the feed. `joinsBelow` is false
        /// when the page lists items the feed lacks below the overlap's end: what the server lists
        /// between the page's end and the cached rows below is unknown (the keepGap policy puts a
        /// gap there).
        case rewrite(throughPosition: Int64, relocated: [StoredItem], change: RowChange, joinsBelow: Bool = true)

        static func == (lhs: Plan, rhs: Plan) -> Bool {
            switch (lhs, rhs) {
            case (.noOverlap, .noOverlap): true
            case (.prepend(let a, let b), .prepend(let c, let d)):
                a == c && b.elementsEqual(d) { $0.row == $1.row && $0.item == $1.item }
            case (.rewrite(let a, let b, let c, let d), .rewrite(let e, let f, let g, let h)):
                a == e && b == f && c == g && d == h
            default: false
            }
        }
    }

    /// How many rows below the page's size the head read reaches: shared ids deeper than this are
    /// treated as moved to the top rather than as proof that the whole head is one overlap.
    static func headLimit(pageSize: Int) -> Int { pageSize * 2 + 64 }

    /// Plans the merge.
    /// - Parameters:
    ///   - page: The new first page, top first.
    ///   - head: The cached rows from the top, as many as ``headLimit(pageSize:)``.
    ///   - matches: The cached rows (anywhere in the feed) whose ids are in `page`, keyed by id.
    ///   - order: How the server orders the list: in one ordered by activity, a page whose only row
    ///     the feed has is its last, under new items, shares nothing that proves an overlap (the row
    ///     may have moved up from above rows the page did not reach).
    ///   - hiddenAboveTheTop: How many items whose removals wait had rows above the head's top that
    ///     the page does not list; read only when ``needsHiddenAboveTheTop(_:)`` says so.
    ///   - rowOfPosition: The row index of a cached position below the head (for relocated rows).
    static func plan(
        page: [EncodedItem], head: [StoredItem], matches: [String: StoredItem],
        order: FeedPolicy.ItemOrder = .fixed, hiddenAboveTheTop: Int = 0, rowOfPosition: (Int64) throws -> Int
    ) rethrows -> Plan {
        guard !matches.isEmpty else { return .noOverlap }
        if order == .byActivity, matches.count == 1, page.count > 1, let last = page.last,
            matches[last.itemID] != nil
        {
            return .noOverlap
        }
        var headIndex: [String: Int] = [:]
        headIndex.reserveCapacity(head.count)
        for (row, item) in head.enumerated() { headIndex[item.itemID] = row }
        // The page covers the server's list from its top down to its last item: the overlap ends at
        // the cached row of the page's last shared item. A shared item cached further down was moved
        // up (a bumped post): it is relocated, and the cached rows between stay, since the page did
        // not cover them.
        guard let lastShared = page.lastIndex(where: { headIndex[$0.itemID] != nil }),
            let last = headIndex[page[lastShared].itemID]
        else {
            // Shared ids exist only far below the head: not an overlap of the head.
            return .noOverlap
        }
        func relocated(below deepest: Int) -> [StoredItem] {
            page.compactMap { item -> StoredItem? in
                guard let row = headIndex[item.itemID] else { return matches[item.itemID] }
                return row > deepest ? head[row] : nil
            }
        }
        // The common case first: new items on top of the cached rows down to the last shared one.
        if relocated(below: last).isEmpty, let fast = prependPlan(page: page, overlap: head[0...last]) { return fast }
        let leftOutAboveTheTop = order == .byActivity ? hiddenAboveTheTop : 0
        guard
            let (deepest, endOffset) = overlapEnd(
                atMost: last, page: page, headIndex: headIndex, leftOutAboveTheTop: leftOutAboveTheTop)
        else {
            // Shared ids only where they would prove more deletions than the page can.
            return .noOverlap
        }
        let overlap = head[0...deepest]
        let relocated = relocated(below: deepest)

        var change = RowChange()
        let pageIDs = Set(page.map(\.itemID))
        change.deleted = overlap.indices.filter { !pageIDs.contains(overlap[$0].itemID) }
        change.deleted += try relocated.map { try rowOfPosition($0.position) }
        let shared = page.enumerated().compactMap { newRow, item in
            headIndex[item.itemID].flatMap { $0 <= deepest ? (newRow: newRow, oldRow: $0, item: item) : nil }
        }
        let stable = Set(longestIncreasingRun(shared.map(\.oldRow)))
        for entry in shared {
            if !stable.contains(entry.oldRow) {
                // A moved row whose content also changed is a delete and an insert: tables refuse to
                // reload and move one row in the same batch. A diffable data source sees the same id
                // move instead, so it is told by id to reconfigure the cell.
                if overlap[entry.oldRow].payload == entry.item.payload {
                    change.moved.append((entry.oldRow, entry.newRow))
                } else {
                    change.deleted.append(entry.oldRow)
                    change.inserted.append(entry.newRow)
                    change.reloadedIDs.append(entry.item.itemID)
                }
            } else if overlap[entry.oldRow].payload != entry.item.payload {
                change.reloaded.append(entry.oldRow)
                change.reloadedIDs.append(entry.item.itemID)
            }
        }
        change.inserted += page.indices.filter { headIndex[page[$0].itemID].map { $0 > deepest } ?? true }
        // A relocated row is a deletion and an insertion too: named by id when its content changed.
        let relocatedIDs = Set(relocated.map(\.itemID))
        change.reloadedIDs += page.filter { item in
            relocatedIDs.contains(item.itemID) && matches[item.itemID].map { $0.payload != item.payload } ?? false
        }.map(\.itemID)
        change.deleted.sort()
        change.inserted.sort()
        // New items below the overlap's end: a ranked list that put them there, or a row bumped after
        // they were published. Either way the page does not reach the rows below.
        let joinsBelow = !page[(endOffset + 1)...].contains { matches[$0.itemID] == nil }
        return .rewrite(
            throughPosition: overlap[deepest].position, relocated: relocated, change: change, joinsBelow: joinsBelow)
    }

    /// The cached row the overlap ends at: the deepest shared row, no deeper than `last` (the row of
    /// the page's last shared item), that the page lists
    /// - right below the row cached above it (a run of cached rows, which did not move: the rows
    ///   above them the page leaves out are deleted, however many);
    /// - or with no cached row above it left out;
    /// - or right below a shared row that qualifies and is cached above it, with no more rows between
    ///   the two left out than the page proves deleted (``DeletionProof/mostDeletions(provedByPageOf:)``).
    ///
    /// A lone shared item below rows the page leaves out, listed under new items, may have moved up
    /// (an inbox's thread with a new message, a post bumped after others were published): the rows
    /// above its old row may be below the page now, not deleted. Nil when no shared row qualifies.
    /// `leftOutAboveTheTop` counts rows left out above the head's top row: hidden items, which a
    /// gap may hang under, that the page leaves out.
    /// - Returns: The row, and the page offset that lists it.
    private static func overlapEnd(
        atMost last: Int, page: [EncodedItem], headIndex: [String: Int], leftOutAboveTheTop: Int
    ) -> (row: Int, offset: Int)? {
        var offsets: [Int: Int] = [:]  // the page offset of each shared row, by cached row
        for (offset, item) in page.enumerated() {
            if let row = headIndex[item.itemID], row <= last { offsets[row] = offset }
        }
        let limit = DeletionProof.mostDeletions(provedByPageOf: page.count)
        var qualified = Set<Int>()  // cached rows
        var end: (row: Int, offset: Int)?
        for (index, (row, offset)) in offsets.sorted(by: { $0.key < $1.key }).enumerated() {
            let inARun = offsets[row - 1] == offset - 1
            // The row the page lists right above this one, if it is a shared row cached above it.
            let above = offset > 0 ? headIndex[page[offset - 1].itemID].flatMap { $0 < row ? $0 : nil } : nil
            let belowAQualifiedRow = above.map { qualified.contains($0) && row - $0 - 1 <= limit } ?? false
            if inARun || row + leftOutAboveTheTop == index || belowAQualifiedRow {
                qualified.insert(row)
                end = (row, offset)  // rows ascend: the last one qualified is the deepest
            }
        }
        return end
    }

    /// Whether ``plan(page:head:matches:order:hiddenAboveTheTop:rowOfPosition:)`` reads the hidden
    /// items above the head's top: in a list ordered by activity, where the head's top row listed
    /// under none of them may have moved up from under them, and from over the gaps that hang under
    /// them.
    static func needsHiddenAboveTheTop(_ order: FeedPolicy.ItemOrder) -> Bool { order == .byActivity }

    /// The fast plan when the page is new items followed by exactly the cached head, in order.
    private static func prependPlan(page: [EncodedItem], overlap: ArraySlice<StoredItem>) -> Plan? {
        let newCount = page.count - overlap.count
        guard newCount >= 0 else { return nil }
        let tail = page[newCount...]
        guard tail.elementsEqual(overlap, by: { $0.itemID == $1.itemID }) else { return nil }
        let reloads = zip(tail, overlap).enumerated().compactMap { row, pair in
            pair.0.payload == pair.1.payload ? nil : (row: row, item: pair.0)
        }
        return .prepend(newItems: Array(page[..<newCount]), reloads: reloads)
    }

    /// The values of one longest strictly increasing subsequence of `values` (patience sorting,
    /// O(n log n)): the shared rows that keep their relative order, so only the others are moves.
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []  // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            run.append(values[index])
            index = previous[index]
        }
        return run.reversed()
    }
}
