import Foundation
import PagedStore
import PagedStoreTesting

/// A model of several server lists (a home timeline, a profile, a hashtag) that list the same posts
/// by id: one pool of posts, each with one server value (its revision), and each list a subset of
/// the pool, newest first. Ids sort by age, so every list pages by `max_id` (the cursor is the last
/// id of a page, and a deleted cursor item still marks its place) and refreshes by `min_id`.
final class SharedTimelines: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    /// The server's revision of each post of the pool, by serial.
    private var revisions: [Int: Int] = [:]
    /// The serials each list holds.
    private var members: [Set<Int>]
    private var deletedIDs = Set<String>()
    private var nextSerial = 1_000
    let pageSize: Int

    init(lists: Int, pageSize: Int) {
        members = Array(repeating: [], count: lists)
        self.pageSize = pageSize
    }

    var listCount: Int { members.count }
    var deleted: Set<String> { lock.withLock { deletedIDs } }

    /// The server's value of the post `id`, nil when it is not (or no longer) on the server.
    func revision(of id: String) -> Int? {
        lock.withLock { Self.serial(of: id).flatMap { revisions[$0] } }
    }

    /// The ids of list `list`, newest first.
    func ids(of list: Int) -> [String] {
        lock.withLock { members[list].sorted(by: >).map { "s\($0)" } }
    }

    /// New posts on top, one per element of `placements`: the lists that hold it.
    func publish(_ placements: [Set<Int>]) {
        lock.withLock {
            for lists in placements {
                nextSerial += 1
                revisions[nextSerial] = 0
                for list in lists { members[list].insert(nextSerial) }
            }
        }
    }

    /// A new server value of each post with one of `ids` (an edit of the post, seen by every list).
    func bump(_ ids: [String]) {
        lock.withLock {
            for serial in ids.compactMap(Self.serial(of:)) where revisions[serial] != nil {
                revisions[serial, default: 0] += 1
            }
        }
    }

    /// Deletes the posts with `ids` from the server: from every list.
    func delete(_ ids: [String]) {
        lock.withLock {
            for id in ids {
                guard let serial = Self.serial(of: id), revisions.removeValue(forKey: serial) != nil else { continue }
                for list in members.indices { members[list].remove(serial) }
                deletedIDs.insert(id)
            }
        }
    }

    /// The page of list `list` that `request` asks for, given the lists as they are now.
    func page(of list: Int, for request: PageRequest) -> Page<SharedPost> {
        lock.withLock {
            let serials = members[list].sorted(by: >)
            let start: Int
            switch request {
            case .first: start = 0
            case .olderThan(let cursor):
                start = serials.firstIndex { $0 < Self.serial(of: cursor) ?? 0 } ?? serials.count
            case .newerThan(let cursor):
                // Mastodon's min_id: the page right above the cursor's place.
                let end = serials.firstIndex { $0 <= Self.serial(of: cursor) ?? 0 } ?? serials.count
                let items = posts(serials[max(end - pageSize, 0)..<end])
                return Page(items: items, olderCursor: items.last?.id, newerCursor: items.first?.id)
            }
            let end = min(start + pageSize, serials.count)
            let items = posts(serials[start..<end])
            return Page(
                items: items, olderCursor: end < serials.count ? items.last?.id : nil, newerCursor: items.first?.id)
        }
    }

    /// The posts with `serials`, at their server values; called under `lock`.
    private func posts(_ serials: ArraySlice<Int>) -> [SharedPost] {
        serials.map { SharedPost(id: "s\($0)", revision: revisions[$0] ?? 0) }
    }

    /// A source answering for list `list`; `failing` says when a fetch fails instead.
    func source(of list: Int, failing: @escaping @Sendable () -> Bool) -> ScriptedSource<SharedPost> {
        ScriptedSource { [self] request in
            let page = page(of: list, for: request)
            if failing() { throw URLError(.timedOut) }
            return page
        }
    }

    private static func serial(of id: String) -> Int? { Int(id.dropFirst()) }
}
