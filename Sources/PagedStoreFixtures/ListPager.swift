package import PagedStore

/// Pages an in-memory list the way a timeline API does: a cursor is the id of an item at the edge of
/// the page it came with. An older page starts right below the item; a newer page (Mastodon's
/// `min_id`) ends right above it. Serves the simulated servers of `pagedb demo` and of the test harness.
package enum ListPager {
    /// The page `request` asks for from `items` (top first), `size` items long.
    package static func page<Item: FeedItem>(_ request: PageRequest, of items: [Item], size: Int) -> Page<Item> {
        if case .newerThan(let cursor) = request {
            let end = items.firstIndex { $0.storedID == cursor } ?? 0
            let start = max(end - size, 0)
            let slice = Array(items[start..<end])
            // At the top there is nothing newer to ask for, as GitHub omits `rel="prev"` on page 1.
            return Page(
                items: slice, olderCursor: slice.last?.storedID, newerCursor: start > 0 ? slice.first?.storedID : nil)
        }
        let start = request.cursor.flatMap { cursor in items.firstIndex { $0.storedID == cursor }.map { $0 + 1 } } ?? 0
        let slice = Array(items[min(start, items.count)..<min(start + size, items.count)])
        return Page(
            items: slice, olderCursor: start + size < items.count ? slice.last?.storedID : nil,
            newerCursor: slice.first?.storedID)
    }
}
