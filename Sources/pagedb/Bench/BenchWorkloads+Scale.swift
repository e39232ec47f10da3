import Foundation
import PagedStore
import PagedStoreTesting

/// SCALE: what one operation costs as the data around it grows, so that a cost that follows the
/// cache rather than the change shows at a glance. Each row times one operation at several sizes
/// and ends with `growth=`, the largest size's median over the smallest's: about 1 where the work
/// itself does not grow.
extension BenchWorkloads {
    func scale() async throws {
        try await followingAWrite()
        try await settlingUnderAStack()
        try await scaleWithTheCache()
    }

    /// One update of a row of a 200-row feed, timed until each of 1, 10 and 100 observed lists of
    /// the feed (each its own `Feed` on the store) shows it. Each list follows the write's recorded
    /// change: the work grows with the lists (each is told and takes the change), and for each list
    /// should be the changed row's, not its window's.
    private func followingAWrite() async throws {
        var medians: [(size: Int, median: Double)] = []
        for lists in [1, 10, 100] {
            let path = dir + "/scale-follow.db"
            removeDatabase(path)
            let store = try FeedStore(path: path)
            let items = (0..<200).map { EditBenchItem(id: "f\($0)", revision: 0) }
            let source = ScriptedSource<EditBenchItem> { _ in Page(items: items, olderCursor: nil) }
            let policy = FeedPolicy(refreshOnOpen: .never)
            let writer = try store.feed("scale", source: source, policy: policy)
            await writer.refresh()
            var observers: [EditLatencyObserver<EditBenchItem>] = []
            for _ in 0..<lists {
                let list = try store.feed("scale", source: source, policy: policy)
                observers.append(await EditLatencyObserver(list) { $0.revision })
            }
            var times: [Double] = []
            for write in 1...21 {
                let row = write % 20
                for observer in observers { observer.expect(row: row, revision: write) }
                let started = BenchClock.wall()
                try await writer.update(EditBenchItem(id: "f\(row)", revision: write))
                var last: Double? = started
                for observer in observers {
                    let shown = await observer.shown(within: EditBench.patience)
                    last = shown.flatMap { shown in last.map { max($0, shown) } }
                }
                guard let last else { throw BenchFailure("SCALE follow: a list did not show write \(write)") }
                times.append(last - started)
            }
            for observer in observers { observer.stop() }
            print("SCALE impl=pagedstore op=follow lists=\(lists) rows=200 \(BenchClock.latencyFields(times))")
            medians.append((lists, times.sorted()[times.count / 2]))
            store.close()
        }
        printGrowth("follow", medians)
    }

    /// Settling (rejecting, so the rest of the stack is rebased on the restored value) the first of
    /// `n` queued edits stacked on one item, then the only edit of one item among `n` other items'
    /// edits, in a feed of 1,001 rows. The first grows with the stack (each later edit goes again on
    /// the restored value); the second must not grow with the feed's other edits.
    private func settlingUnderAStack() async throws {
        var stacked: [(size: Int, median: Double)] = []
        for size in [1, 10, 100, 500] {
            let median = try await settling(stacked: size, otherItemsEdited: 0)
            stacked.append((size, median))
        }
        printGrowth("settle-stacked", stacked)
        var among: [(size: Int, median: Double)] = []
        for others in [0, 100, 1_000] {
            let median = try await settling(stacked: 1, otherItemsEdited: others)
            among.append((others, median))
        }
        printGrowth("settle-among-others", among)
    }

    /// The median of 9 settles of item `s0`'s first edit, its stack kept at `stacked` edits, while
    /// items `s1`… each have one edit pending.
    private func settling(stacked size: Int, otherItemsEdited others: Int) async throws -> Double {
        let path = dir + "/scale-settle.db"
        removeDatabase(path)
        let store = try FeedStore(path: path)
        defer { store.close() }
        let items = (0...1_000).map { EditBenchItem(id: "s\($0)", revision: 0) }
        let source = ScriptedSource<EditBenchItem> { _ in Page(items: items, olderCursor: nil) }
        let policy = FeedPolicy(refreshOnOpen: .never, windowSize: 2_000, firstScreenRows: 2_000)
        let feed = try store.feed("scale", source: source, policy: policy)
        await feed.refresh()
        // No handler is registered for the kind: the edits stay queued until settled here.
        var revision = 0
        func edit(_ id: String) async throws {
            revision += 1
            let next = revision
            _ = try await feed.enqueue(EditBenchItem.kind, id: id, argument: EditBenchItem.Argument(revision: next)) {
                $0.revision = next
            }
        }
        for other in 0..<others { try await edit("s\(other + 1)") }
        for _ in 0..<size { try await edit("s0") }
        var times: [Double] = []
        for _ in 0..<9 {
            let started = BenchClock.wall()
            try await feed.settlePendingEdit(itemID: "s0", committed: false)
            times.append(BenchClock.wall() - started)
            try await edit("s0")
        }
        guard try await feed.pendingEdits().count == size + others else {
            throw BenchFailure("SCALE settle: \(size + others) edits should be pending after the settles")
        }
        print(
            "SCALE impl=pagedstore op=settle stacked=\(size) other_items_edited=\(others) "
                + BenchClock.latencyFields(times))
        return times.sorted()[times.count / 2]
    }

    /// The row's closing line: each size's median, and the largest's over the smallest's.
    func printGrowth(_ operation: String, _ medians: [(size: Int, median: Double)]) {
        guard let first = medians.first, let last = medians.last, first.median > 0 else { return }
        let sizes = medians.map { "\($0.size):\(String(format: "%.0f", $0.median * 1e6))" }.joined(separator: ",")
        print(
            "SCALE impl=pagedstore op=\(operation) median_us_by_size=\(sizes) "
                + "growth=\(String(format: "%.2f", last.median / first.median))")
    }
}
