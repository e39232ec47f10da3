import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// A search feed through random sequences of every operation that reaches it: local writes to the
/// cached timeline (updates, inserts, removals, refreshes), the server's results changing (ids
/// that come and go, content edited, pages that repeat an id), pull-to-refresh, next pages, rows
/// appearing and new queries. After every step the list shows the join of its parts (the server's
/// rows, then the cache's matches the server does not hold, or the other way round); across the
/// whole run every change applies as a batch update reads it, no id is listed twice, and every row
/// whose item changed is reloaded or reconfigured.
///
/// `PAGEDSTORE_PROPERTY_SEQUENCES` sets how many sequences run (default 8, a tenth of the value).
@Suite(.limit(minutes: 3)) struct SearchFeedPropertyTests {
    static let words = ["alpha", "beta", "gamma"]

    static var seeds: [UInt64] {
        let count = ProcessInfo.processInfo.environment["PAGEDSTORE_PROPERTY_SEQUENCES"].flatMap(Int.init) ?? 80
        return (0..<UInt64(max(1, count / 10))).map { 0x5EA2_CF00 + $0 }
    }

    @Test func theListIsTheJoinOfItsPartsAndEveryChangeApplies() async throws {
        for seed in Self.seeds { try await Self.run(seed: seed) }
    }

    static func content(_ random: inout SplitMix64) -> String {
        let picked = words.filter { _ in Bool.random(using: &random) }
        return (picked.isEmpty ? ["delta"] : picked).joined(separator: " ")
            + " v\(Int.random(in: 0..<1000, using: &random))"
    }

    static func matches(_ toot: Toot, _ query: String) -> Bool {
        toot.content.split(separator: " ").contains(Substring(query))
    }

    static func run(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let test = try FeedTestCase()
        let store = try test.store()
        // Home holds h0…h7 and s0…s3; the server finds x0…x5, s0…s3 (also at home) and h0.
        let homeIDs = (0..<8).map { "h\($0)" } + (0..<4).map { "s\($0)" }
        let serverIDs = (0..<6).map { "x\($0)" } + (0..<4).map { "s\($0)" } + ["h0"]
        let home = Locked<[Toot]>([])
        let homeFeed = try store.feed(
            "home", source: ScriptedSource<Toot> { _ in Page(items: home.value, olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        let found = Locked<[Toot]>([])
        func shuffleServer(_ random: inout SplitMix64) {
            let ids = serverIDs.shuffled(using: &random).prefix(Int.random(in: 0...serverIDs.count, using: &random))
            found.value = ids.map { Toot(id: $0, content: content(&random)) }
        }
        home.value = homeIDs.filter { _ in Bool.random(using: &random) }.map { Toot(id: $0, content: content(&random)) }
        await homeFeed.refresh()
        shuffleServer(&random)
        let placement: LocalMatchPlacement = Bool.random(using: &random) ? .below : .above
        let search = try await store.searchFeed(
            "alpha", key: "search", in: ["home"], order: Bool.random(using: &random) ? .recency : .relevance,
            placement: placement,
            policy: FeedPolicy(refreshOnOpen: .always, firstScreenRows: Int.random(in: 2...4, using: &random))
        ) { query in
            ScriptedSource<Toot> { request in
                let hits = found.value.filter { matches($0, query) }
                let page = request.cursor.flatMap { Int($0.dropFirst()) } ?? 0
                // Pages of 3 that overlap by one: the server repeats an id.
                let start = min(page * 2, hits.count)
                return Page(
                    items: Array(hits[start..<min(start + 3, hits.count)]),
                    olderCursor: start + 3 < hits.count ? "p\(page + 1)" : nil)
            }
        }
        let recorder = StreamRecorder(await search.snapshots)
        await search.start()
        var query = "alpha"
        var log: [String] = []
        for step in 0..<40 {
            switch Int.random(in: 0..<7, using: &random) {
            case 0:
                let item = Toot(id: homeIDs.randomElement(using: &random) ?? "h0", content: content(&random))
                if try await !homeFeed.update(item) { try await homeFeed.insert(item, at: 0) }
                log.append("home writes \(item.id) '\(item.content)'")
            case 1:
                let id = homeIDs.randomElement(using: &random) ?? "h0"
                _ = try await homeFeed.remove(id: id)
                log.append("home removes \(id)")
            case 2:
                shuffleServer(&random)
                await search.refresh()
                log.append("the server changes; refresh")
            case 3:
                await search.loadNextPage()
                log.append("next page")
            case 4:
                query = words.randomElement(using: &random) ?? "alpha"
                try await search.search(query + (Bool.random(using: &random) ? " " : ""))
                log.append("search \(query)")
            case 5:
                let count = await search.snapshot.entries.count
                let row = Int.random(in: 0...max(count, 1), using: &random)
                await search.rowDidAppear(row)
                log.append("row \(row) appears")
            default:
                home.value = homeIDs.filter { _ in Bool.random(using: &random) }
                    .map { Toot(id: $0, content: content(&random)) }
                await homeFeed.refresh()
                log.append("home refreshes")
            }
            let context = "seed \(seed) step \(step) (\(placement)) [\(log.suffix(3).joined(separator: "; "))]"
            // Home's writes reach the cache's part through the file: wait until it shows them.
            let homeItems = try test.itemsOnDisk(of: Toot.self, key: "home")
            let expected = Set(homeItems.filter { matches($0, query) }.map(\.id))
            let query = query
            let shown = await recorder.snapshots { snapshot in
                let local = Set(snapshot.local.results.map(\.id))
                return snapshot.query == query
                    && (snapshot.local.hasMore ? local.isSubset(of: expected) : local == expected)
                    && snapshot.local.results.allSatisfy { result in homeItems.contains { $0 == result.item } }
            }
            guard let last = shown.last else {
                Issue.record("\(context): the stream ended")
                return
            }
            checkJoin(last, placement: placement, context)
        }
        let all = await recorder.snapshots { _ in true }
        SearchSnapshotChecks.check(all, "seed \(seed)")
        checkChangedRowsAreReconfigured(all, "seed \(seed)")
    }

    /// The entries are the server part's rows, then the cache's matches the server does not hold
    /// (or the other way round), each server row showing the server part's item.
    static func checkJoin(_ snapshot: SearchFeedSnapshot<Toot>, placement: LocalMatchPlacement, _ context: String) {
        guard snapshot.server.rows.loadedRange == 0..<snapshot.server.rows.count else { return }
        let server = snapshot.server.rows.loadedItems.map(\.id)
        var seen = Set(server)
        let localOnly = snapshot.local.results.map(\.id).filter { seen.insert($0).inserted }
        let expected = placement == .below ? server + localOnly : localOnly + server
        #expect(snapshot.entries.map(\.id) == expected, "\(context): entries are not the join of their parts")
        let serverItems = Dictionary(
            snapshot.server.rows.loadedItems.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for entry in snapshot.entries {
            #expect(
                entry.origin == .server ? entry.item == serverItems[entry.id] : entry.match?.item == entry.item,
                "\(context): \(entry.id) shows another item than its part's")
        }
    }

    /// Every row whose item differs from the snapshot before is named in the change.
    static func checkChangedRowsAreReconfigured(_ snapshots: [SearchFeedSnapshot<Toot>], _ context: String) {
        for (old, new) in zip(snapshots, snapshots.dropFirst()) {
            let before = Dictionary(old.entries.map { ($0.id, $0.item) }, uniquingKeysWith: { first, _ in first })
            let named = Set(new.change.reconfiguredIDs)
            for entry in new.entries {
                guard let was = before[entry.id], let item = entry.item, let wasItem = was, wasItem != item else {
                    continue
                }
                #expect(
                    named.contains(entry.id) || new.change.isFullReload,
                    "\(context), snapshot \(new.sequence): \(entry.id) changed but is neither reloaded nor reconfigured"
                )
            }
        }
    }
}
