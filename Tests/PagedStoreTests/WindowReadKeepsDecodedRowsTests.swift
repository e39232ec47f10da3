import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// A window read again decodes only the rows whose bytes it does not hold already: a list that
/// follows one changed row decodes that row, not its window.
@Suite(.limit(minutes: 1)) struct WindowReadKeepsDecodedRowsTests {
    /// A JSON codec that counts its decodes.
    private static func countingCodec(_ decodes: Locked<Int>) -> ItemCodec<Post> {
        ItemCodec(
            storesText: true, encode: { try JSONEncoder().encode($0) },
            decode: { data in
                _ = decodes.increment()
                return try JSONDecoder().decode(Post.self, from: data)
            })
    }

    private static func stored(_ posts: [Post], from position: Int64 = 0) throws -> [StoredItem] {
        try posts.enumerated().map { index, post in
            StoredItem(
                itemID: post.id, position: position + Int64(index), section: post.section,
                payload: try JSONEncoder().encode(post))
        }
    }

    @Test func rowsWithTheBytesHeldAreNotDecodedAgain() throws {
        let decodes = Locked(0)
        let codec = Self.countingCodec(decodes)
        var held = RowWindow<Post>(capacity: 10)
        var rows = try Self.stored(.posts("p", 5))
        held.rows = LoadedRows.decoding(rows, codec: codec).rows
        decodes.value = 0
        // The same bytes read again, but one row's (an encoder's key order may differ between runs:
        // the bytes, not the item, are compared).
        rows[2].payload = try JSONEncoder().encode(Post(id: "p2", revision: 9))
        let read = LoadedRows.decoding(rows, codec: codec, keeping: held)
        #expect(decodes.value == 1, "only the changed row")
        #expect(read.rows.items.map(\.revision) == [0, 0, 9, 0, 0])
    }

    @Test func aRowAtAnotherPlaceOrUnreadableIsDecoded() throws {
        let decodes = Locked(0)
        let codec = Self.countingCodec(decodes)
        var held = RowWindow<Post>(capacity: 10)
        held.rows = LoadedRows.decoding(try Self.stored(.posts("p", 3)), codec: codec).rows
        decodes.value = 0
        var rows = try Self.stored(.posts("p", 3), from: 1)  // every row moved down one place
        rows[2].payload = Data("{".utf8)  // and the last edited by hand
        let read = LoadedRows.decoding(rows, codec: codec, keeping: held)
        #expect(decodes.value == 3)
        #expect(read.rows.items.map(\.id) == ["p0", "p1"])
        #expect(read.undecodable.map(\.itemID) == ["p2"])
    }
}
