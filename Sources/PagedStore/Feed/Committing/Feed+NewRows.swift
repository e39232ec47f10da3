import Foundation

/// The rows in memory for items a commit just wrote.
extension Feed {
    /// Loaded rows for items just written, at the positions the store gave them.
    static func newRows(_ items: [Item], _ encoded: [EncodedItem], positions: [Int64]) -> LoadedRows<Item> {
        var keys: [RowKey] = []
        keys.reserveCapacity(encoded.count)
        for (item, position) in zip(encoded, positions) {
            keys.append(RowKey(id: item.itemID, position: position, section: item.section))
        }
        return LoadedRows(items: items, keys: keys)
    }
}
