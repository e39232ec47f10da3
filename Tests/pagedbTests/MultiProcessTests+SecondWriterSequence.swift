import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStoreFixtures

/// A feed in this process and `pagedb`, another process, writing one feed in a random order.
extension MultiProcessTests {
    /// A server list of ``Entry``, newest first, paged by the last id of each page.
    final class EntryServer: @unchecked Sendable {
        // @unchecked: guarded by `lock`.
        private let lock = NSLock()
        private var list: [Entry] = []
        private var next = 0
        let pageSize = 5

        /// `count` new posts on top.
        func publish(_ count: Int) {
            lock.withLock {
                list.insert(contentsOf: (0..<count).map { Entry(id: "s\(next + count - $0)") }, at: 0)
                next += count
            }
        }

        /// Flips the edited flag of the post at `index`.
        func edit(at index: Int) {
            lock.withLock {
                guard list.indices.contains(index) else { return }
                list[index].edited = !(list[index].edited ?? false)
            }
        }

        func page(for request: PageRequest) -> Page<Entry> {
            lock.withLock {
                var start = 0
                if case .olderThan(let cursor) = request {
                    start = list.firstIndex { $0.id == cursor }.map { $0 + 1 } ?? list.count
                }
                let items = Array(list[start..<min(start + pageSize, list.count)])
                let more = start + pageSize < list.count
                return Page(items: items, olderCursor: more ? items.last?.id : nil, newerCursor: items.first?.id)
            }
        }

        /// The newest page as the page file `pagedb apply` reads.
        func newestPageFile() throws -> String {
            let page = self.page(for: .first)
            let document: [String: Any] = [
                "items": try page.items.map { try JSONSerialization.jsonObject(with: JSONEncoder().encode($0)) },
                "next_cursor": page.olderCursor as Any? ?? NSNull(),
                "previous_cursor": page.newerCursor as Any? ?? NSNull(),
            ]
            return String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
        }
    }

    /// After every step this process takes, each snapshot's change applies to the rows before it,
    /// and after every step that reads or writes, the rows, content included, are the file's. The other process refreshes with new and
    /// edited posts (`pagedb apply`) and trims (`pagedb trim`); this one refreshes, loads next pages,
    /// inserts, updates and removes rows, and scrolls.
    @Test(arguments: 0..<6 as Range<UInt64>)
    func aFeedAndAnotherProcessWritingOneFeedInAnyOrderKeepEveryChangeExact(seed: UInt64) async throws {
        var random = SplitMix64(seed: 0x5EC0_0000 + seed)
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("shared.sqlite")
        let server = EntryServer()
        server.publish(12)
        let store = try FeedStore(path: db)
        let feed = try store.feed(
            "home", source: ScriptedSource { server.page(for: $0) }, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        let recorder = await SnapshotRecorder(feed)
        for step in 0..<24 {
            let context = "seed \(seed) step \(step)"
            let snapshot = await feed.snapshot
            let shown = snapshot.rows.loadedItems.map(\.id)
            // A row appearing inside the window reads nothing, so the feed has not looked at the file.
            var looked = true
            switch Int.random(in: 0..<9, using: &random) {
            case 0, 1:
                server.publish(Int.random(in: 0...3, using: &random))
                server.edit(at: Int.random(in: 0..<6, using: &random))
                let page = try scratch.file("page\(step).json", try server.newestPageFile())
                let result = try await PagedDBBinary.run([
                    "apply", "home", "--db", db, "--page", page, "--as", "refresh",
                ])
                #expect(result.status == 0, "\(context): \(result.stderr)")
                continue  // this process has not looked yet
            case 2:
                let rows = Int.random(in: 3...15, using: &random)
                let result = try await PagedDBBinary.run(["trim", "home", "--db", db, "--max-rows", "\(rows)"])
                #expect(result.status == 0, "\(context): \(result.stderr)")
                continue
            case 3: await feed.refresh()
            case 4: await feed.loadNextPage()
            case 5:
                try await feed.insert(Entry(id: "local\(step)"), at: Int.random(in: 0...shown.count, using: &random))
            case 6:
                if let id = shown.randomElement(using: &random) { try await feed.update(Entry(id: id, edited: true)) }
            case 7:
                if let id = shown.randomElement(using: &random) { try await feed.remove(id: id) }
            default:
                if !shown.isEmpty { await feed.rowDidAppear(Int.random(in: 0..<shown.count, using: &random)) }
                looked = false
            }
            await feed.waitUntilIdle()
            let snapshots = await recorder.snapshots(settlingOn: feed)
            for (previous, next) in zip(snapshots, snapshots.dropFirst()) {
                let old = previous.rows.indices.map { previous.rows.id(at: $0) ?? "" }
                let new = next.rows.indices.map { next.rows.id(at: $0) ?? "" }
                do {
                    #expect(try BatchUpdate.apply(next.change, to: old, new: new) == new, "\(context)")
                } catch {
                    Issue.record("\(context): UIKit would reject \(next.change): \(error)")
                }
            }
            guard looked else { continue }
            let file = try DatabaseQueue(path: db).read { store in
                guard let record = try store.feed(key: "home") else { return [Entry]() }
                return try store.window(of: record, from: .top, limit: 1_000).map {
                    try ItemCodec<Entry>.json.decode($0.payload)
                }
            }
            #expect(await feed.snapshot.rows.loadedItems == file, "\(context): the rows are not the file's")
        }
        store.close()
    }
}
