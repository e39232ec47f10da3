import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// How a search feed joins the server's results and the cache's matches: server order wins, each
/// item once, the local run where the placement puts it, and every change applies as a batch
/// update reads it.
@Suite(.limit()) struct SearchFeedMergeTests {
    typealias Row = SearchFeedMerge.Row

    func rows(_ ids: String, server: Bool, query: String = "q", version: UInt8 = 0) -> [Row] {
        ids.map {
            Row(
                id: String($0),
                version: server
                    ? SearchFeedMerge.version(query: query, server: Int(version))
                    : SearchFeedMerge.version(query: query, local: Data([version])), isServer: server)
        }
    }

    func ids(_ rows: [Row]) -> [String] { rows.map { $0.id + ($0.isServer ? "" : "·") } }

    @Test func serverRowsComeFirstAndTheCacheAddsOnlyWhatTheServerDoesNotList() {
        let joined = SearchFeedMerge.joined(
            server: rows("xa", server: true), local: rows("abca", server: false), placement: .below)
        #expect(ids(joined) == ["x", "a", "b·", "c·"])
        let above = SearchFeedMerge.joined(
            server: rows("xa", server: true), local: rows("abc", server: false), placement: .above)
        #expect(ids(above) == ["b·", "c·", "x", "a"])
    }

    @Test func aCachedMatchTheServerBringsMovesIntoTheServersRowsAndIsReconfigured() throws {
        let old = SearchFeedMerge.joined(
            server: rows("x", server: true), local: rows("ab", server: false), placement: .below)
        let new = SearchFeedMerge.joined(
            server: rows("bx", server: true), local: rows("ab", server: false), placement: .below)
        let change = SearchFeedMerge.change(from: old, to: new)
        #expect(change.reconfiguredIDs == ["b"])
        #expect(try BatchUpdate.apply(change, to: [old.map(\.id)], new: [new.map(\.id)]) == [new.map(\.id)])
    }

    @Test func aNewQueryReconfiguresEveryRowItKeeps() {
        let old = rows("abc", server: false, query: "sw")
        let new = rows("ca", server: false, query: "swift")
        let change = SearchFeedMerge.change(from: old, to: new)
        #expect(Set(change.reconfiguredIDs) == ["a", "c"])
        #expect(change.deletedRows == [[0, 1]])
    }

    @Test(arguments: 0..<4) func randomJoinsChangeAsABatchUpdateReadsIt(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let pool = "abcdefghij".map { String($0) }
        func join(_ placement: LocalMatchPlacement) -> [Row] {
            let server = pool.shuffled(using: &random).prefix(Int.random(in: 0...5, using: &random))
            let local = pool.shuffled(using: &random).prefix(Int.random(in: 0...6, using: &random))
            return SearchFeedMerge.joined(
                server: server.map { Row(id: $0, version: Data([1]), isServer: true) },
                local: local.map { Row(id: $0, version: Data([Bool.random(using: &random) ? 2 : 3]), isServer: false) },
                placement: placement)
        }
        for placement in [LocalMatchPlacement.below, .above] {
            for _ in 0..<300 {
                let (old, new) = (join(placement), join(placement))
                #expect(Set(new.map(\.id)).count == new.count)
                let change = SearchFeedMerge.change(from: old, to: new)
                let applied = try BatchUpdate.apply(change, to: [old.map(\.id)], new: [new.map(\.id)])
                #expect(applied == [new.map(\.id)], "\(ids(old)) -> \(ids(new))")
            }
        }
    }

    @Test func thePartOnTopLoadsMoreFirstAndAFailedServerYieldsToTheCache() {
        #expect(SearchFeedMerge.nextWindow(serverCanLoad: true, localHasMore: true, placement: .below) == .server)
        #expect(SearchFeedMerge.nextWindow(serverCanLoad: false, localHasMore: true, placement: .below) == .local)
        #expect(SearchFeedMerge.nextWindow(serverCanLoad: true, localHasMore: true, placement: .above) == .local)
        #expect(SearchFeedMerge.nextWindow(serverCanLoad: true, localHasMore: false, placement: .above) == .server)
        #expect(SearchFeedMerge.nextWindow(serverCanLoad: false, localHasMore: false, placement: .below) == .none)
    }

    @Test func aRowIsPlacedInItsPartAndTheCachesRunLoadsMoreNearItsEnd() {
        let counts = SearchFeedMerge.Counts(server: 3, local: 2)
        #expect(SearchFeedMerge.place(ofRow: 2, counts: counts, placement: .below) == .server(2))
        #expect(SearchFeedMerge.place(ofRow: 3, counts: counts, placement: .below) == .local(0))
        #expect(SearchFeedMerge.place(ofRow: 1, counts: counts, placement: .above) == .local(1))
        #expect(SearchFeedMerge.place(ofRow: 2, counts: counts, placement: .above) == .server(0))
        #expect(SearchFeedMerge.place(ofRow: 5, counts: counts, placement: .below) == nil)
        #expect(SearchFeedMerge.place(ofRow: -1, counts: counts, placement: .below) == nil)
        #expect(
            !SearchFeedMerge.loadsLocalMore(
                afterRow: 0, counts: counts, placement: .below, hasMore: true, prefetchDistance: 2))
        #expect(
            SearchFeedMerge.loadsLocalMore(
                afterRow: 3, counts: counts, placement: .below, hasMore: true, prefetchDistance: 2))
        #expect(
            !SearchFeedMerge.loadsLocalMore(
                afterRow: 4, counts: counts, placement: .below, hasMore: false, prefetchDistance: 2))
        // A run the server's rows emptied: the last server row stands for it.
        let emptied = SearchFeedMerge.Counts(server: 3, local: 0)
        #expect(
            SearchFeedMerge.loadsLocalMore(
                afterRow: 2, counts: emptied, placement: .below, hasMore: true, prefetchDistance: 1))
        // Above the server's rows: near the run's end, from either side of it.
        #expect(
            SearchFeedMerge.loadsLocalMore(
                afterRow: 2, counts: counts, placement: .above, hasMore: true, prefetchDistance: 1))
        #expect(
            !SearchFeedMerge.loadsLocalMore(
                afterRow: 4, counts: counts, placement: .above, hasMore: true, prefetchDistance: 1))
    }
}
