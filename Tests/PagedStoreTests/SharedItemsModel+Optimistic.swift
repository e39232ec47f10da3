import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The model's optimistic edits: an update, insert or removal in one feed whose call lets another
/// feed write first (a refresh, a next page, a local update of the same item) or the store remove
/// the item, then succeeds or fails. An optimistic edit is its feed's own: it is not spread, and a
/// copy written meanwhile replaces what a rollback restores, never the edit shown.
extension SharedItemsModel {
    enum OptimisticKind: CaseIterable {
        case update, insert, remove
    }

    /// How an optimistic edit ended, for the checks once the step's writes are taken.
    struct OptimisticOutcome {
        let kind: OptimisticKind
        let key: String
        let id: String
        /// The revision the feed showed before the edit (nil for an insert).
        let before: Int?
        /// The revision the edit shows (nil for a removal).
        let edited: Int?
        let succeeded: Bool
        /// Whether `store.remove(id:of:)` removed the item while the call ran.
        let removedFromTheStore: Bool
    }

    /// An optimistic edit in `list` (see the extension's summary). While the call runs, the feed and
    /// its file show the edit.
    mutating func optimisticEdit(
        in list: List, _ snapshot: FeedSnapshot<SharedPost>, before files: [String: [SharedPost]], step: Int
    ) async throws -> Effect {
        guard let other = lists.filter({ $0.key != list.key }).randomElement(using: &random) else { return .none }
        let kind = OptimisticKind.allCases.randomElement(using: &random) ?? .update
        let id: String
        var before: Int?
        switch kind {
        case .update, .remove:
            guard let item = snapshot.rows.loadedItems.randomElement(using: &random) else { return .none }
            (id, before) = (item.id, item.revision)
        case .insert:
            let mine = Set(files[list.key, default: []].map(\.id))
            let elsewhere = Set(files.values.joined().map(\.id)).subtracting(mine).sorted()
            id = elsewhere.randomElement(using: &random) ?? "optimistic\(step)"
        }
        let edited = kind == .update ? before.map { $0 + 100_000 } : kind == .insert ? 30_000 + step : nil
        // The store removes the item while the call runs (3) only under an update: an insert's item
        // is the app's post, and a removal rolled back puts back an item the store removed (a known
        // issue, see SharedItemsTests).
        let meanwhile = (kind == .update ? [0, 1, 2, 3, 4] : [0, 1, 2, 4]).randomElement(using: &random) ?? 4
        let otherHolds = await other.feed.snapshot.ids.contains(id)
        let succeeds = Bool.random(using: &random)
        let (feed, test, key, store) = (list.feed, test, list.key, stores[0])
        let update = SharedPost(id: id, revision: 10_000 + step)
        let context = "\(context) step \(step): \(kind) of \(id) in \(list.name), \(meanwhile) in \(other.name)"
        let call: @Sendable (SharedPost) async throws -> Void = { _ in
            switch meanwhile {
            case 0: await other.feed.refresh()
            case 1: await other.feed.loadNextPage()
            case 2: _ = try await other.feed.update(update)
            case 3: _ = try store.remove(id: id, of: SharedPost.self)
            default: break
            }
            await other.feed.waitUntilIdle()
            if meanwhile != 3 {
                let mine = await feed.snapshot.rows.loadedItems.first { $0.id == id }?.revision
                let stored = try test.itemsOnDisk(of: SharedPost.self, key: key).first { $0.id == id }?.revision
                #expect(mine == edited, "\(context): the feed shows \(mine ?? -1), not its pending edit")
                #expect(stored == edited, "\(context): the file holds \(stored ?? -1), not the pending edit")
            }
            if !succeeds { throw URLError(.badServerResponse) }
        }
        do {
            switch kind {
            case .update: try await feed.edit(id: id, { $0.revision += 100_000 }, commit: call)
            case .insert:
                let row = Int.random(in: 0...snapshot.rows.count, using: &random)
                try await feed.insert(SharedPost(id: id, revision: edited ?? 0), at: row, commit: call)
            case .remove: try await feed.remove(id: id, commit: call)
            }
        } catch is URLError {
            #expect(try await feed.pendingEdits().isEmpty, "\(context): a failed call left its edit pending")
        }
        let wrote = meanwhile < 2 || (meanwhile == 2 && otherHolds)
        return Effect(
            acting: [list.key, other.key], writers: wrote ? [other.key] : [], fromServer: meanwhile < 2,
            local: meanwhile == 2 && otherHolds ? update : nil,
            edit: OptimisticOutcome(
                kind: kind, key: list.key, id: id, before: before, edited: edited, succeeded: succeeds,
                removedFromTheStore: meanwhile == 3))
    }

    /// What an optimistic edit left once its call ended: a committed edit stays its feed's own
    /// value; a rollback shows the copy written while the call ran, or else the value from before;
    /// an item the store removed meanwhile stays removed.
    mutating func checkEdit(
        _ edit: OptimisticOutcome, _ after: [String: [SharedPost]], written: [SharedPost], _ context: String
    ) {
        let shown = after[edit.key, default: []].first { $0.id == edit.id }?.revision
        let context = "\(context): \(edit.succeeded ? "committed" : "failed") \(edit.kind) of \(edit.id)"
        if edit.removedFromTheStore {
            let holders = keys.filter { after[$0, default: []].contains { $0.id == edit.id } }
            expect(holders.isEmpty, "\(context): back in \(holders) after the store removed it")
            return
        }
        let expected: Int?
        switch (edit.kind, edit.succeeded) {
        case (.update, true), (.insert, true), (.remove, true): expected = edit.edited
        case (.insert, false): expected = nil
        case (.update, false), (.remove, false):
            expected = written.contains { $0.id == edit.id } ? values.latest[edit.id] : edit.before
        }
        expect(shown == expected, "\(context) shows \(shown.map(String.init) ?? "nothing"), not \(expected ?? -1)")
        if edit.succeeded, let shown { values.setOwn(shown, of: edit.id, in: edit.key) }
    }
}
