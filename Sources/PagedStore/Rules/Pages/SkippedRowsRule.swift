/// Where a page that repeats rows the feed has is attached to the feed, so that ``DeletionProof``
/// can tell the rows it skipped. Pure: ``Feed/deleteRowsSkipped(by:as:known:in:store:)`` reads the
/// facts and carries the proof out through ``ProvenDeletions``.
///
/// A page lists a stretch of the server's list without holes, so the rows it repeats, and the edge
/// it is attached to, bound the cached rows it skipped:
/// - a next page repeats rows above the bottom when a page-numbered list shifted down: from its
///   first item on, down to the old bottom. One that opens with items the feed lacks and repeats a
///   row after them is out of the feed's order (an item that moved down a ranked list): no proof;
/// - a newer page repeats rows when the feed's newer cursor lagged behind its head. Its stretch runs
///   from its first item, which is the new top when the page brings new items (they go on top),
///   or else its first repeated row, down to its last repeated row.
enum SkippedRowsRule {
    /// A page that may repeat rows the feed has.
    enum Page: Sendable, Equatable {
        /// A next page, asked to go on below the bottom row, at this position. Rows below it are the
        /// page's own, just appended.
        case next(bottom: Int64)
        /// A newer page, asked to go on top of the feed, whose top row is at this position (nil when
        /// the feed has no rows).
        case newer(top: Int64?)
    }

    /// The edge a page is attached to.
    enum Edge: Sendable, Equatable {
        /// Right above the top row, at this position: the page's new items go on top of it.
        case aboveTopRow(Int64)
        /// The page's lower edge, at this position.
        case lower(Int64)
    }

    /// What a page proves deletions with.
    struct Proof {
        /// The page offsets and positions of the page's items that the feed had before the page, in
        /// page order.
        var repeated: [(offset: Int, position: Int64)]
        var edge: Edge
    }

    /// What `page`, listing `itemIDs`, proves deletions with, given the positions of the rows the feed
    /// has with those ids (`known`); nil when it proves nothing.
    static func proof(of page: Page, itemIDs: [String], known: [String: Int64]) -> Proof? {
        let repeated = itemIDs.indices.compactMap { offset -> (offset: Int, position: Int64)? in
            guard let position = known[itemIDs[offset]] else { return nil }
            if case .next(let bottom) = page, position > bottom { return nil }
            return (offset, position)
        }
        guard let first = repeated.first, let last = repeated.last else { return nil }
        switch page {
        case .next(let bottom):
            return first.offset == 0 ? Proof(repeated: repeated, edge: .lower(bottom)) : nil
        case .newer(let top):
            // From the top row down when the page brings new items: they go right above it.
            if first.offset > 0, let top { return Proof(repeated: repeated, edge: .aboveTopRow(top)) }
            return Proof(repeated: repeated, edge: .lower(last.position))
        }
    }
}
