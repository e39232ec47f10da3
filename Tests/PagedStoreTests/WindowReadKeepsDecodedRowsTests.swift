import Foundation
import PagedStoreTesting
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

/// An item whose encoder leaves a field out: the server's value carries `note`, the file keeps only
/// `id` and `revision`, so the file's bytes decode to `note == ""`.
private struct NotedPost: FeedItem, Codable, Equatable {
    let id: String
    var revision = 0
    var note = ""
    private enum CodingKeys: String, CodingKey { case id, revision }
}

/// A list keeps only items it decoded from the file's bytes: one it holds as the server handed it
/// over is decoded when its window is read again, as before.
extension WindowReadKeepsDecodedRowsTests {
    @Test func aFollowedListShowsWhatTheFilesBytesDecodeTo() async throws {
        let test = try FeedTestCase()
        let first = Page(items: (0..<5).map { NotedPost(id: "n\($0)", note: "fetched") }, olderCursor: "2")
        let second = Page(items: (5..<10).map { NotedPost(id: "n\($0)", note: "fetched") }, olderCursor: nil)
        let source = ScriptedSource<NotedPost> { request in request.cursor == nil ? first : second }
        let policy = FeedPolicy(refreshOnOpen: .never)
        let app = try test.store().feed("home", source: source, policy: policy, codec: .json)
        await app.refresh()
        await app.loadNextPage()
        #expect(await app.snapshot.rows.count == 10)
        // Another store (a share extension) edits one row of the file, and the app follows it.
        let share = try test.store().feed("home", source: source, policy: policy, codec: .json)
        _ = try await share.update(NotedPost(id: "n0", revision: 1))
        _ = try await app.pendingEdits()  // a public read syncs with the file first
        let snapshot = await app.snapshot
        #expect(snapshot.rows[0]?.revision == 1, "the app followed the other store's write")
        let onDisk = try test.itemsOnDisk(of: NotedPost.self, key: "home")
        #expect((0..<10).map { snapshot.rows[$0] } == onDisk.map { $0 })
    }
}
