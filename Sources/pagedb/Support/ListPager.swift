import PagedStore

/// Pages an in-memory list the way a timeline API does: a cursor is the id of the last item of the
/// page it came with, and the next page starts right below that item. Serves the demo's and the
/// crash harness's simulated servers.
enum ListPager {
    /// The page `request` asks for from `items` (top first), `size` items long.
    static func page<Item: FeedItem>(_ request: PageRequest, of items: [Item], size: Int) -> Page<Item> {
        let start = request.cursor.flatMap { cursor in items.firstIndex { $0.storedID == cursor }.map { $0 + 1 } } ?? 0
        let slice = Array(items[min(start, items.count)..<min(start + size, items.count)])
        return Page(
            items: slice, olderCursor: start + size < items.count ? slice.last?.storedID : nil,
            newerCursor: slice.first?.storedID)
    }
}
