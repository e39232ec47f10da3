import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The checks after every step of the shared items' model.
extension SharedItemsModel {
    /// Waits until every list followed the step (through its snapshots, never a timer), takes the
    /// step's writes into the model and checks every list against it and against the file.
    mutating func check(_ effect: Effect, before: [String: [SharedPost]], _ context: String) async throws {
        for list in lists { await list.feed.waitUntilIdle() }
        let after = try files()
        await waitUntilEveryListShows(after, context)
        var written = effect.writers.sorted().flatMap {
            SharedValues.writes(from: before[$0, default: []], to: after[$0, default: []])
        }
        if effect.fromServer {
            // A fetch may store rows that its feed does not keep (newer pages, then the newest page
            // that starts the list again): their copies spread all the same, at the server's value.
            let seen = Set(written.map(\.id))
            let spread = keys.filter { !effect.writers.contains($0) }.flatMap {
                SharedValues.writes(from: before[$0, default: []], to: after[$0, default: []])
            }
            written += spread.filter { !seen.contains($0.id) && server.revision(of: $0.id) == $0.revision }
        }
        if let edit = effect.edit, edit.kind == .update {
            // The edited item shows the edit everywhere until it settles: its check takes it.
            written.removeAll { $0.id == edit.id }
        }
        if let queued = effect.queued {
            // The queued edits' item: their check takes every write of it.
            written.removeAll { $0.id == queued.id }
        }
        if trace { print("  wrote \(written.map { "\($0.id)=\($0.revision)" })") }
        if let local = effect.local {
            expect(written == [local], "\(context): wrote \(written), not the local \(local)")
        } else if effect.fromServer {
            for item in written where server.revision(of: item.id) != item.revision {
                fail(
                    "\(context): a page wrote \(item), the server has \(item.id) at \(server.revision(of: item.id) ?? -1)"
                )
            }
        }
        for item in written { values.wrote(item) }
        if let edit = effect.edit { checkEdit(edit, after, written: written, context) }
        if let queued = effect.queued { checkQueued(queued, after, context) }
        for index in lists.indices { try await checkList(at: index, acting: effect.acting, file: after, context) }
        let violations = try reader.read { try $0.verify() }
        expect(violations.isEmpty, "\(context): \(violations)")
        try checkSearch(after, context)
    }

    /// One list: its new snapshots' changes apply (and are exact where its feed did not write), it
    /// took no write as a full reload from the file, its rows are the file's, nothing says loading,
    /// and each row shows the value the model expects.
    mutating func checkList(
        at index: Int, acting: Set<String>, file: [String: [SharedPost]], _ context: String
    ) async throws {
        let list = lists[index]
        let context = "\(context), list \(list.name)"
        let snapshots = await list.recorder.snapshots(settlingOn: list.feed)
        let fresh = snapshots.dropFirst(max(list.checked - 1, 0))
        for (previous, next) in zip(fresh, fresh.dropFirst()) {
            if !SnapshotChangeChecks.check(from: previous, to: next, context) { failed = true }
            if !acting.contains(list.key), next.change.isFullReload {
                fail("\(context): a full reload where its feed only followed another's write")
            }
        }
        lists[index].checked = snapshots.count
        let reloads = await list.events.events(settlingOn: list.feed).filter { $0.kind == .reloadedFromFile }
        if reloads.count > list.reloads {
            fail(
                "\(context): a recorded write was taken as a full reload from the file: \(reloads.compactMap(\.reason))"
            )
            lists[index].reloads = reloads.count
        }
        let snapshot = await list.feed.snapshot
        let rows = file[list.key, default: []]
        expect(snapshot.showsAll(of: rows), "\(context): the rows shown are not the file's")
        expect(snapshot.nextPage != .loading, "\(context): next page loading with nothing in flight")
        expect(snapshot.refresh != .loading, "\(context): refresh loading with nothing in flight")
        expect(!snapshot.gaps.contains { $0.state == .loading }, "\(context): a gap loading with nothing in flight")
        let wrong = values.check(rows, of: list.key)
        expect(wrong.isEmpty, "\(context): \(wrong)")
    }

    /// Waits until every list shows its feed's rows of `files` (through its snapshots, never a
    /// timer); a list that does not within two minutes fails the sequence, named with what it shows.
    mutating func waitUntilEveryListShows(_ files: [String: [SharedPost]], _ context: String) async {
        for list in lists {
            let (feed, rows) = (list.feed, files[list.key, default: []])
            if await waitingAtMost({ await feed.firstSnapshot { $0.showsAll(of: rows) } }) == nil {
                let shown = await feed.snapshot.rows.loadedItems
                fail("\(context): \(list.name) never showed the file's rows \(rows), it shows \(shown)")
            }
        }
    }

    /// Records an issue when `condition` does not hold; the sequence ends after the step.
    mutating func expect(
        _ condition: Bool, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if !condition { fail(message, sourceLocation: sourceLocation) }
    }

    /// Records an issue; the sequence ends after the step (what follows a first failure repeats it).
    mutating func fail(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        failed = true
        Issue.record("\(message)", sourceLocation: sourceLocation)
    }
}
