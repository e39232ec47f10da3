import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// The rows a SwiftUI list shows: items, placeholders outside the window, and gap markers in place,
/// with unique ids.
@Suite(.limit(minutes: 3)) struct FeedListRowsTests {
    @Test func gapsSitBelowTheirRowAndUnloadedRowsArePlaceholders() async throws {
        let test = try FeedTestCase()
        let server = ModelServer(.posts("p", 5), pageSize: 2)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        server.items = .posts("n", 3) + server.items
        await feed.refresh()
        let snapshot = await feed.snapshot
        let list = FeedListRows(rows: snapshot.rows, gaps: snapshot.gaps)
        #expect(list.map(Self.describe) == ["n0", "n1", "gap", "p0", "p1"])
        #expect(Set(list.map(\.id)).count == list.count)

        let windowed = FeedListRows<Post>(rows: FeedRows(count: 4, windowStart: 2, window: LoadedRows()), gaps: [])
        #expect(windowed.map(\.id) == (0..<4).map { FeedListRow<Post>.ID.placeholder(row: $0) })
        let topGap = FeedGap(id: 9, afterRow: -1, state: .idle, canFillFromBottom: false)
        #expect(FeedListRows(rows: snapshot.rows, gaps: [topGap]).first?.id == .gap(9))
    }

    static func describe(_ row: FeedListRow<Post>) -> String {
        switch row.kind {
        case .item(let post, _): post.id
        case .placeholder(let row): "placeholder \(row)"
        case .gap: "gap"
        }
    }
}
