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
/// (and so read or wrote) shows the file's rows, content included. At the end both feeds, after a
/// read, show the file's rows.
struct SecondWriterSequence {
    let seed: UInt64
    let test: FeedTestCase

    func run() async throws {
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
        let feeds = [try test.feed(source, policy: policy), try test.feed(source, policy: policy)]
        let recorders = [await SnapshotRecorder(feeds[0]), await SnapshotRecorder(feeds[1])]
        await feeds[0].refresh()
        var calls: [(call: HeldCall, edit: Task<Void, Never>)] = []
        let trace = ProcessInfo.processInfo.environment["PAGEDSTORE_MODEL_TRACE"] != nil
        for step in 0..<30 {
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
                let snapshots = await recorders[index].snapshots(settlingOn: other)
                SecondWriterChecks.everyChangeApplies(snapshots, "\(context), store \(index)")
            }
            if looked { try SecondWriterChecks.rowsEqualTheFile(await feed.snapshot, test, context) }
        }
        for (_, edit) in calls { edit.cancel() }
        for (index, feed) in feeds.enumerated() {
            _ = try await feed.identifiers()
            let snapshots = await recorders[index].snapshots(settlingOn: feed)
            SecondWriterChecks.everyChangeApplies(snapshots, "seed \(seed) end, store \(index)")
            try SecondWriterChecks.rowsEqualTheFile(await feed.snapshot, test, "seed \(seed) end, store \(index)")
        }
    }
}
