/// One row of a list built from a snapshot: an item, a placeholder for a row whose item is not
/// loaded, or a gap marker. `List` and `ForEach` take it as it is: it is `Identifiable` and holds no
/// optional.
public struct FeedListRow<Item: FeedItem>: Identifiable, Sendable {
    /// A row's identity: unique within one snapshot by construction (items by their stored id, which
    /// the cache keeps unique; placeholders by row; gaps by their own id).
    public enum ID: Hashable, Sendable {
        /// An item, by ``FeedItem/storedID``.
        case item(String)
        /// A row whose item is outside the loaded window, by its row.
        case placeholder(row: Int)
        /// A gap marker, by ``FeedGap/id``.
        case gap(Int64)
    }

    /// What the row shows.
    public enum Kind: Sendable {
        /// A loaded item at flat row `row` (pass `row` to ``FeedModel/rowDidAppear(_:)``).
        case item(Item, row: Int)
        /// A row whose item is not loaded yet: show a placeholder; when it appears, pass `row` to
        /// ``FeedModel/rowDidAppear(_:)`` and the window moves there.
        case placeholder(row: Int)
        /// Rows missing between two loaded ones: show "load more", which calls ``FeedModel/loadGap(_:from:)``.
        case gap(FeedGap)
    }

    /// The row's identity.
    public let id: ID
    /// What the row shows.
    public let kind: Kind
}

/// A snapshot's rows with its gap markers in place, as a collection of ``FeedListRow``s: the data of
/// a SwiftUI `List` or `ForEach`.
///
/// Elements are made when read, so a large feed costs nothing until its rows are shown.
/// - Complexity: Reading an element is O(*g*) for *g* gaps.
public struct FeedListRows<Item: FeedItem>: RandomAccessCollection, Sendable {
    /// The rows.
    public let rows: FeedRows<Item>
    /// The gaps, top first.
    public let gaps: [FeedGap]

    /// The list of `rows` with `gaps` in place.
    public init(rows: FeedRows<Item>, gaps: [FeedGap]) {
        self.rows = rows
        self.gaps = gaps.sorted { ($0.afterRow, $0.id) < ($1.afterRow, $1.id) }
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// Rows and gaps together.
    public var endIndex: Int { rows.count + gaps.count }

    /// The row or gap at `index`.
    public subscript(index: Int) -> FeedListRow<Item> {
        var gapsAbove = 0
        for gap in gaps {
            // A gap sits right below its row, so right below every gap above it too.
            let place = gap.afterRow + 1 + gapsAbove
            if place == index { return FeedListRow(id: .gap(gap.id), kind: .gap(gap)) }
            if place > index { break }
            gapsAbove += 1
        }
        let row = index - gapsAbove
        if let item = rows[row], let id = rows.id(at: row) {
            return FeedListRow(id: .item(id), kind: .item(item, row: row))
        }
        return FeedListRow(id: .placeholder(row: row), kind: .placeholder(row: row))
    }
}
