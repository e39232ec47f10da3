import Foundation

/// What the cache knows of a row besides its item: its id, place and section, and, for an item
/// decoded from the file, a hash of the bytes it was decoded from.
struct RowKey: Sendable, Equatable {
    var id: String
    var position: Int64
    var section: String?
    /// A hash of the stored payload the row's item was decoded from: a row read again with an equal
    /// key holds the same bytes, so its decoded item is kept (a file edited by hand changes the
    /// bytes, and the row is decoded again, and found undecodable if it is). Nil for an item the
    /// server or the app handed over: what its bytes decode to may differ (an encoder that leaves a
    /// field out), so it is decoded when the window is read again.
    var decodedFrom: Int?

    /// The key of a row whose item the server or the app handed over, not decoded from the file.
    init(id: String, position: Int64, section: String?) {
        self.id = id
        self.position = position
        self.section = section
    }

    /// The key of a row whose item was decoded from `payload`.
    init(id: String, position: Int64, section: String?, decodedFrom payload: Data) {
        self.init(id: id, position: position, section: section)
        var hasher = Hasher()
        payload.withUnsafeBytes { hasher.combine(bytes: $0) }
        decodedFrom = hasher.finalize()
    }
}

/// Rows held in memory as two parallel arrays: the decoded items, and their keys. The bookkeeping
/// of ids and positions then never runs through generic code, which in a generic feed is paid per
/// element (metadata look-ups, witness-table copies) on every refresh and scroll.
struct LoadedRows<Item: Sendable>: Sendable {
    private(set) var items: [Item] = []
    private(set) var keys: [RowKey] = []

    init() {}

    init(items: [Item], keys: [RowKey]) {
        self.items = items
        self.keys = keys
    }

    /// Decodes rows read from the cache, up to the first row the codec cannot decode: the rows are
    /// a contiguous run. Every row of `stored` that does not decode is returned, for removal.
    static func decoding(
        _ stored: [StoredItem], codec: ItemCodec<Item>
    ) -> (rows: LoadedRows, undecodable: [UndecodableRow]) {
        var rows = LoadedRows()
        var undecodable: [UndecodableRow] = []
        rows.items.reserveCapacity(stored.count)
        rows.keys.reserveCapacity(stored.count)
        for row in stored {
            do {
                let item = try codec.decode(row.payload)
                guard undecodable.isEmpty else { continue }
                rows.items.append(item)
                rows.keys.append(
                    RowKey(id: row.itemID, position: row.position, section: row.section, decodedFrom: row.payload))
            } catch {
                undecodable.append(UndecodableRow(itemID: row.itemID, position: row.position, error: "\(error)"))
            }
        }
        return (rows, undecodable)
    }

    /// Decodes `stored`, keeping the item of each row `held` decoded from the same bytes at the same
    /// place (same id, position and section): a list that reads its window again after a write
    /// decodes only the rows the write inserted or changed, and the rows it holds as the server or
    /// the app handed them over (see ``RowKey/decodedFrom``).
    static func decoding(
        _ stored: [StoredItem], codec: ItemCodec<Item>, keeping held: RowWindow<Item>
    ) -> (rows: LoadedRows, undecodable: [UndecodableRow]) {
        guard !held.rows.keys.isEmpty else { return decoding(stored, codec: codec) }
        var heldByPosition: [Int64: Int] = [:]
        heldByPosition.reserveCapacity(held.rows.keys.count)
        for (index, key) in held.rows.keys.enumerated() { heldByPosition[key.position] = index }
        var rows = LoadedRows()
        var undecodable: [UndecodableRow] = []
        rows.items.reserveCapacity(stored.count)
        rows.keys.reserveCapacity(stored.count)
        for row in stored {
            let key = RowKey(id: row.itemID, position: row.position, section: row.section, decodedFrom: row.payload)
            // `key` has the bytes' hash, so an equal held key was decoded from the same bytes (a row
            // held as handed over has none, and is decoded).
            if undecodable.isEmpty, let index = heldByPosition[row.position], held.rows.keys[index] == key {
                rows.items.append(held.rows.items[index])
                rows.keys.append(key)
                continue
            }
            do {
                let item = try codec.decode(row.payload)
                guard undecodable.isEmpty else { continue }
                rows.items.append(item)
                rows.keys.append(key)
            } catch {
                undecodable.append(UndecodableRow(itemID: row.itemID, position: row.position, error: "\(error)"))
            }
        }
        return (rows, undecodable)
    }

    var count: Int { keys.count }

    subscript(range: Range<Int>) -> LoadedRows {
        LoadedRows(items: Array(items[range]), keys: Array(keys[range]))
    }

    mutating func append(_ other: LoadedRows) {
        items.append(contentsOf: other.items)
        keys.append(contentsOf: other.keys)
    }

    mutating func insert(_ other: LoadedRows, at index: Int) {
        items.insert(contentsOf: other.items, at: index)
        keys.insert(contentsOf: other.keys, at: index)
    }

    mutating func removeLast(_ count: Int) {
        items.removeLast(count)
        keys.removeLast(count)
    }

    mutating func replace(at offset: Int, item: Item, key: RowKey) {
        items[offset] = item
        keys[offset] = key
    }
}

/// The rows of a snapshot: every row of the feed by index, with the items of a window around the
/// rows on screen decoded in memory.
///
/// `count` is the feed's full row count, so a table can size itself for all of it. A row outside the
/// window reads as nil (show a placeholder): ``Feed/rowDidAppear(_:)`` moves the window there, reading
/// the rows from the cache, so a million-row feed scrolls in constant memory. A feed smaller than its
/// policy's ``FeedPolicy/windowSize`` has every row loaded once its rows have appeared.
public struct FeedRows<Item: Sendable>: RandomAccessCollection, Sendable {
    /// The feed's row count.
    public let count: Int
    /// The first row of the window.
    let windowStart: Int
    /// The window's rows, in order.
    let window: LoadedRows<Item>

    init(count: Int, windowStart: Int, window: LoadedRows<Item>) {
        self.count = count
        self.windowStart = windowStart
        self.window = window
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The row count.
    public var endIndex: Int { count }

    /// The item at `row`, or nil while the row is outside the loaded window.
    public subscript(row: Int) -> Item? {
        let offset = row - windowStart
        return window.items.indices.contains(offset) ? window.items[offset] : nil
    }

    /// The rows whose items are loaded.
    public var loadedRange: Range<Int> { windowStart..<(windowStart + window.count) }

    /// The id of the item at `row`, or nil while the row is outside the loaded window.
    public func id(at row: Int) -> String? {
        let offset = row - windowStart
        return window.keys.indices.contains(offset) ? window.keys[offset].id : nil
    }

    /// The loaded items, in order.
    public var loadedItems: [Item] { window.items }
}

/// Equal when the rows match and the same window is loaded with equal items.
extension FeedRows: Equatable where Item: Equatable {}

extension LoadedRows: Equatable where Item: Equatable {}
