import Foundation

@testable import PagedStore

/// Small builders shared by the storage tests.
enum Fixtures {
    /// `count` encoded items with ids `prefix0`, `prefix1`, … and a JSON payload naming them.
    static func items(_ prefix: String, count: Int, revision: Int = 0) -> [EncodedItem] {
        (0..<count).map { index in
            let id = "\(prefix)\(index)"
            return EncodedItem(itemID: id, payload: Data(#"{"id":"\#(id)","rev":\#(revision)}"#.utf8))
        }
    }

    /// A next-page write asked with `cursor` that returned `older`.
    static func olderPage(from cursor: String?, to older: String?) -> PageWrite {
        PageWrite(request: .older, requestCursor: cursor, olderCursor: older, newerCursor: nil)
    }

    /// Every row of a feed in display order, read in one window.
    static func rows(of key: String, in queue: DatabaseQueue) throws -> [StoredItem] {
        try queue.read { store in
            guard let feed = try store.feed(key: key) else { return [] }
            return try store.window(of: feed, from: .top, limit: Int.max)
        }
    }
}
