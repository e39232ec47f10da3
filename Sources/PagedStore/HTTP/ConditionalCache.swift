import Foundation

/// The first page's validators (`ETag`, `Last-Modified`) with the page they validate, so a refresh
/// can ask `If-None-Match` / `If-Modified-Since` and answer a `304` with that page.
///
/// Kept in memory per source: after a relaunch the first refresh is unconditional. Fetches run
/// concurrently (a refresh superseding another), so every access holds `lock`.
final class ConditionalCache<Item: Sendable>: @unchecked Sendable {
    /// A page and the validators it came with.
    struct Entry: Sendable {
        var etag: String?
        var lastModified: String?
        var page: Page<Item>
    }

    private let lock = NSLock()
    private var entry: Entry?

    /// The entry a conditional request is built from; the caller keeps it, so the `304` is answered
    /// with the page it validated even if another refresh replaced the entry meanwhile.
    var current: Entry? { lock.withLock { entry } }

    /// Keeps `page` if the response had a validator, or forgets the old one if it had none.
    func store(_ page: Page<Item>, etag: String?, lastModified: String?) {
        let entry = etag == nil && lastModified == nil ? nil : Entry(etag: etag, lastModified: lastModified, page: page)
        lock.withLock { self.entry = entry }
    }
}
