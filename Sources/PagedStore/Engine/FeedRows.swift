/// A row the feed holds in memory: the decoded item with its id, place and section.
struct LoadedRow<Item: Sendable>: Sendable {
    var item: Item
    var id: String
    var position: Int64
    var section: String?
}

/// The rows of a snapshot: every row of the feed by index, with the items of a window around the
/// rows on screen decoded in memory.
///
/// `count` is the feed's full row count, so a table can size itself for all of it. A row outside the
/// window reads as nil (show a placeholder): ``Feed/rowDidAppear(_:)`` moves the window there, reading
/// the rows from the cache, so a million-row feed scrolls in constant memory. A feed smaller than its
/// policy's ``FeedPolicy/windowSize`` has every row loaded.
public struct FeedRows<Item: Sendable>: RandomAccessCollection, Sendable {
    /// The feed's row count.
    public let count: Int
    /// The first row of the window.
    let windowStart: Int
    /// The window's rows, in order.
    let window: [LoadedRow<Item>]

    init(count: Int, windowStart: Int, window: [LoadedRow<Item>]) {
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
        return window.indices.contains(offset) ? window[offset].item : nil
    }

    /// The rows whose items are loaded.
    public var loadedRange: Range<Int> { windowStart..<(windowStart + window.count) }

    /// The id of the item at `row`, or nil while the row is outside the loaded window.
    public func id(at row: Int) -> String? {
        let offset = row - windowStart
        return window.indices.contains(offset) ? window[offset].id : nil
    }

    /// The loaded items, in order.
    public var loadedItems: [Item] { window.map(\.item) }
}
