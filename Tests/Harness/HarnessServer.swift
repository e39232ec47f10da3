import PagedStore
import PagedStoreFixtures

/// The harnesses' simulated server: a list, newest first, that grows on top and whose items change
/// or go; a cursor is the id of the item at the edge of its page (``ListPager``).
actor HarnessServer<Item: FeedItem>: PageSource {
    private var items: [Item]
    private let prefix: String
    private let pageSize: Int
    private let make: @Sendable (String) -> Item
    private var next: Int

    /// A list of `count` items made by `make` from ids `prefix0`, `prefix1`…, the newest on top.
    init(prefix: String, items count: Int, pageSize: Int, make: @escaping @Sendable (String) -> Item) {
        self.prefix = prefix
        self.pageSize = pageSize
        self.make = make
        items = (0..<count).map { make("\(prefix)\($0)") }.reversed()
        next = count
    }

    /// `count` new items on top.
    func publish(_ count: Int) {
        for _ in 0..<count {
            items.insert(make("\(prefix)\(next)"), at: 0)
            next += 1
        }
    }

    /// Changes the item at `index` (none when the list is shorter).
    func revise(at index: Int, _ change: @Sendable (inout Item) -> Void) {
        guard items.indices.contains(index) else { return }
        change(&items[index])
    }

    /// Deletes the item at `index` (none when the list is shorter).
    func remove(at index: Int) {
        guard items.indices.contains(index) else { return }
        items.remove(at: index)
    }

    nonisolated func fetch(_ request: PageRequest) async throws -> Page<Item> {
        await page(request)
    }

    private func page(_ request: PageRequest) -> Page<Item> {
        ListPager.page(request, of: items, size: pageSize)
    }
}
