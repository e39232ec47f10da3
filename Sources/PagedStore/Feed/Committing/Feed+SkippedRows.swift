import Foundation

/// Deleting the cached rows that a page repeating rows skipped: the server no longer lists them.
extension Feed {
    /// Deletes the rows that `encoded`, a `page` that may repeat rows the feed has, skipped (see
    /// ``SkippedRowsRule`` and ``ProvenDeletions/delete(skippedBy:known:attachedAt:edge:in:store:)``).
    /// - Parameter known: The feed's rows with the page's ids, by id.
    /// - Returns: The deleted rows' indices, ascending.
    static func deleteRowsSkipped(
        by encoded: [EncodedItem], as page: SkippedRowsRule.Page, known: [String: StoredItem],
        in feed: inout FeedRecord, store: PageStore
    ) throws -> [Int] {
        let positions = known.mapValues(\.position)
        guard let proof = SkippedRowsRule.proof(of: page, itemIDs: encoded.map(\.itemID), known: positions) else {
            return []
        }
        let (end, edge): (DeletionProof.End, Int64) =
            switch proof.edge {
            case .aboveTopRow(let top): (.upper, try PageStore.position(top, movedBy: -1))
            case .lower(let position): (.lower, position)
            }
        return try ProvenDeletions.delete(
            skippedBy: encoded, known: proof.repeated, attachedAt: end, edge: edge, in: &feed, store: store)
    }
}
