import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// One random sequence of two stores writing one feed: every operation of a feed (refresh, next
/// page, gap fill, local insert, update and removal, optimistic edits committed or rolled back
/// later, trims, rows appearing and visible ranges), on either store, while the server's list gains
/// items on top and changes items' content.
///
/// After every step: every snapshot of both feeds applies to the one before it; the feed that acted
/// (and so read or wrote) shows the file's rows, content included. At the end both feeds show the
/// file's rows: after a read of their own, or, for a sequence that follows live, by themselves.
struct SecondWriterSequence {
    let seed: UInt64
    let test: FeedTestCase
    /// How many operations the sequence makes.
    var steps = 30
    /// Both feeds on one store (two screens on one key) rather than a store each.
    var oneStore = false
    /// At the end, wait for each feed to show the file's rows by itself, as every open list follows
    /// every write, instead of asking it to read.
    var followsLive = false

    /// Runs the sequence. - Returns: What each feed's list saw (its snapshots, full reloads and busy
    /// failures), in the order of the feeds.
    @discardableResult
    func run() async throws -> [ObservedList<Post>.Counts] {
        var random = SplitMix64(seed: 0x2D_0000 + seed)
        let server = TimelineModel(
            count: Int.random(in: 5...30, using: &random), pageSize: Int.random(in: 3...8, using: &random),
            byPageNumber: false, sectioned: false)
        let source = ScriptedSource<Post> { request in server.page(for: request) }
        // Half the sequences hold a small window, so that rows appearing move it: a read by row number.
        let window = Bool.random(using: &random) ? 8 : 300
        let policy = FeedPolicy(
            refreshOnOpen: .never, gapPolicy: Bool.random(using: &random) ? .keepGap : .replace,
            prefetchDistance: 2, windowSize: window, firstScreenRows: window)
        let shared = oneStore ? try test.store() : nil
        let feeds = [
            try test.feed(source, policy: policy, store: shared), try test.feed(source, policy: policy, store: shared),
        ]
        let lists = [await ObservedList(feeds[0]), await ObservedList(feeds[1])]
        await feeds[0].refresh()
        var calls: [(call: HeldCall, edit: Task<Void, Never>)] = []
        let trace = TestEnvironment.tracesModels
        for step in 0..<steps {
            let actor = Int.random(in: 0..<2, using: &random)
            let feed = feeds[actor]
            let snapshot = await feed.snapshot
            let context = "seed \(seed) step \(step) store \(actor)"
            var looked = true
            let operation = Int.random(in: 0..<13, using: &random)
            if trace { print("\(context) op \(operation) rows \(snapshot.ids)") }
            switch operation {
            case 0:
                server.publish(Int.random(in: 1...10, using: &random))
                looked = false
            case 1:
                server.editOrDelete(using: &random)
                looked = false
            case 2: await feed.refresh()
            case 3: await feed.loadNextPage()
            case 4:
                if let gap = snapshot.gaps.first {
                    await feed.loadGap(gap)
                } else {
                    await feed.loadNextPage()
                }
            case 5:
                try await feed.insert(
                    Post(id: "local\(seed)-\(step)"), at: Int.random(in: 0...snapshot.rows.count, using: &random))
            case 6:
                let id = snapshot.ids.randomElement(using: &random) ?? "none"
                try await feed.update(Post(id: id, revision: 100 + step))
            case 7:
                try await feed.remove(id: snapshot.ids.randomElement(using: &random) ?? "none")
            case 8:
                // An optimistic edit whose call stays out: a later step answers it.
                guard let id = snapshot.ids.randomElement(using: &random) else {
                    looked = false
                    break
                }
                let call = HeldCall()
                let kind = Int.random(in: 0..<3, using: &random)
                let edit = Task {
                    do {
                        switch kind {
                        case 0:
                            try await feed.edit(
                                id: id, { $0.revision += 1_000 }, commit: { _ in try await call.outcome() })
                        case 1:
                            try await feed.insert(
                                Post(id: "posted\(seed)-\(step)"), at: 0, commit: { _ in try await call.outcome() })
                        default: try await feed.remove(id: id, commit: { _ in try await call.outcome() })
                        }
                    } catch {
                        // A failed call, or an item with an edit pending in either store.
                    }
                    call.refused()
                }
                calls.append((call, edit))
                // The edit is written (or refused) before the next step.
                await call.started()
            case 9:
                looked = false
                guard !calls.isEmpty else { break }
                let (call, edit) = calls.remove(at: Int.random(in: 0..<calls.count, using: &random))
                call.finish(succeeding: Bool.random(using: &random))
                await edit.value
            case 10: try await feed.trim(maxRows: Int.random(in: 3...30, using: &random))
            case 11:
                looked = false
                guard snapshot.rows.count > 0 else { break }
                await feed.rowDidAppear(Int.random(in: 0..<snapshot.rows.count, using: &random))
                // A window that moved was read from the file.
                looked = await feed.snapshot.rows.loadedRange != snapshot.rows.loadedRange
            default:
                looked = false
                guard snapshot.rows.count > 0 else { break }
                let first = Int.random(in: 0..<snapshot.rows.count, using: &random)
                await feed.setVisibleRows(first..<min(first + 5, snapshot.rows.count))
                looked = await feed.snapshot.rows.loadedRange != snapshot.rows.loadedRange
            }
            for other in feeds { await other.waitUntilIdle() }
            for (index, other) in feeds.enumerated() {
                await Self.settle(lists[index], on: other, "\(context), store \(index)")
                #expect(
                    lists[index].rejectedChanges.isEmpty, "\(context), store \(index): \(lists[index].rejectedChanges)")
                if !lists[index].rejectedChanges.isEmpty { return lists.map(\.seen) }
            }
            if looked { try SecondWriterChecks.rowsEqualTheFile(await feed.snapshot, test, context) }
        }
        for (_, edit) in calls { edit.cancel() }
        for (index, feed) in feeds.enumerated() {
            if followsLive {
                let file = try test.postsOnDisk()
                let shown = await lists[index].firstSnapshot(within: .seconds(120)) { $0.showsAll(of: file) }
                #expect(shown != nil, "seed \(seed) end, store \(index): the list never showed the file's rows \(file)")
            } else {
                _ = try await feed.identifiers()
            }
            await Self.settle(lists[index], on: feed, "seed \(seed) end, store \(index)")
            #expect(lists[index].rejectedChanges.isEmpty, "seed \(seed) end, store \(index)")
            try SecondWriterChecks.rowsEqualTheFile(await feed.snapshot, test, "seed \(seed) end, store \(index)")
        }
        return lists.map(\.seen)
    }

    /// Waits until `list` has received `feed`'s current snapshot, for at most two minutes.
    private static func settle(
        _ list: ObservedList<Post>, on feed: Feed<Post>, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let sequence = await feed.snapshot.sequence
        let received = await list.firstSnapshot(within: .seconds(120)) { $0.sequence >= sequence }
        #expect(
            received != nil, "\(context): the list never received snapshot \(sequence)", sourceLocation: sourceLocation)
    }
}

extension FeedSnapshot where Item: Equatable {
    /// Whether the snapshot counts the rows of `file` and each of its loaded rows is the file's.
    func showsAll(of file: [Item]) -> Bool {
        rows.count == file.count && rows.loadedRange.allSatisfy { rows[$0] == file[$0] }
    }
}
