import Foundation
import PagedStore
import PagedStoreTesting

/// A server list paged by cursor, where a cursor is the id of the last item of the page it came with.
/// Tests change `items` between requests (new items on top, deletions, edits) as a real server would.
final class ModelServer: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var list: [Post]
    let pageSize: Int

    init(_ items: [Post], pageSize: Int) {
        list = items
        self.pageSize = pageSize
    }

    var items: [Post] {
        get { lock.withLock { list } }
        set { lock.withLock { list = newValue } }
    }

    /// Removes the items `shouldBeRemoved` picks in one step: outbox handlers that run side by side
    /// (edits of different items are sent at once) lose no removal, as `items.removeAll` (a read,
    /// then a write) would.
    func removeItems(where shouldBeRemoved: (Post) -> Bool) {
        lock.withLock { list.removeAll(where: shouldBeRemoved) }
    }

    /// The page the request asks for, given the list as it is now.
    func page(for request: PageRequest) -> Page<Post> {
        let items = self.items
        let start: Int
        switch request {
        case .first: start = 0
        case .olderThan(let cursor):
            // A cursor whose item is gone resumes at the top, as a real timeline API's max_id would not;
            // the tests that care keep cursor items in place.
            start = (items.firstIndex { $0.id == cursor }).map { $0 + 1 } ?? items.count
        case .newerThan(let cursor):
            // Mastodon's min_id: the page right above the cursor's item, newest first; nothing when
            // the item is gone (the tests that fill gaps from the bottom keep cursor items in place).
            let id = cursor.hasPrefix("new:") ? String(cursor.dropFirst(4)) : cursor
            guard let end = items.firstIndex(where: { $0.id == id }) else {
                return Page(items: [], olderCursor: nil, newerCursor: nil)
            }
            let slice = Array(items[max(end - pageSize, 0)..<end])
            return Page(items: slice, olderCursor: slice.last?.id, newerCursor: slice.first.map { "new:\($0.id)" })
        }
        let slice = Array(items[min(start, items.count)..<min(start + pageSize, items.count)])
        let older = start + pageSize < items.count ? slice.last?.id : nil
        return Page(items: slice, olderCursor: older, newerCursor: slice.first.map { "new:\($0.id)" })
    }

    /// A source answering from this server at once.
    var source: ScriptedSource<Post> {
        ScriptedSource { [self] request in page(for: request) }
    }

    /// A source paging the same list by page number (the cursor is the next page's number), as
    /// GitHub's REST API pages: items added on top shift every page down, so a next page repeats
    /// rows a feed has.
    var pageNumberSource: ScriptedSource<Post> {
        ScriptedSource { [self] request in
            let items = self.items
            let number: Int
            switch request {
            case .olderThan(let cursor): number = Int(cursor) ?? 1
            case .first, .newerThan: number = 1
            }
            let start = min((number - 1) * pageSize, items.count)
            let end = min(start + pageSize, items.count)
            return Page(items: Array(items[start..<end]), olderCursor: end < items.count ? "\(number + 1)" : nil)
        }
    }
}
