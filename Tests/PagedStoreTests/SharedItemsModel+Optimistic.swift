import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The model's optimistic edits: an update, insert or removal in one feed whose call lets another
/// feed write first (a refresh, a next page, a local update of the same item) or the store remove
/// the item, then succeeds or fails. An update shows in every feed holding the item until it
/// settles, over any copy written meanwhile, which becomes what a rollback restores everywhere; an
/// insert or a removal is its feed's own.
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
        /// The revision another feed's local update wrote while the call ran, if it held the item.
        let updatedMeanwhile: Int?
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
        // The store removes the item while the call runs (3) under an update or a removal, not an
        // insert: its item is the app's post.
        let meanwhile = (kind == .insert ? [0, 1, 2, 4] : [0, 1, 2, 3, 4]).randomElement(using: &random) ?? 4
        let otherHolds = await other.feed.snapshot.ids.contains(id)
        let succeeds = Bool.random(using: &random)
        let (feed, test, key, store, server) = (list.feed, test, list.key, stores[0], server)
        let update = SharedPost(id: id, revision: 10_000 + step)
        // An update's change goes again on a copy another feed writes meanwhile (a server page's, a
        // local update's): what it shows then, for the checks once it settled.
        let shownEdit = Locked<Int?>(nil)
        let context = "\(context) step \(step): \(kind) of \(id) in \(list.name), \(meanwhile) in \(other.name)"
        if trace { print("  \(context), \(succeeds ? "succeeds" : "fails")") }
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
                // The other feed's write reaches this one by a nudge it follows in its own time: it
                // reads the file first, as a list asking for its ids does.
                _ = try await feed.identifiers()
                let mine = await feed.snapshot.rows.loadedItems.first { $0.id == id }?.revision
                let stored = try test.itemsOnDisk(of: SharedPost.self, key: key).first { $0.id == id }?.revision
                var allowed: Set<Int?> = [edited]
                if kind == .update {
                    let copies = [server.revision(of: id), meanwhile == 2 ? update.revision : nil]
                    allowed.formUnion(copies.compactMap { $0 }.map { $0 + 100_000 })
                }
                #expect(allowed.contains(mine), "\(context): the feed shows \(mine ?? -1), not its pending edit")
                #expect(stored == mine, "\(context): the file holds \(stored ?? -1), not the edit shown \(mine ?? -1)")
                shownEdit.value = mine
                if kind == .update,
                    let theirs = await other.feed.snapshot.rows.loadedItems.first(where: { $0.id == id })
                {
                    #expect(
                        theirs.revision == mine, "\(context): the other feed shows \(theirs), not the pending edit")
                }
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
        // A local update under a pending update is the edit's base, not a value shown: the edit's
        // check takes it.
        let localMeanwhile = meanwhile == 2 && otherHolds ? update : nil
        return Effect(
            acting: [list.key, other.key], writers: wrote ? [other.key] : [], fromServer: meanwhile < 2,
            local: kind == .update ? nil : localMeanwhile,
            edit: OptimisticOutcome(
                kind: kind, key: list.key, id: id, before: before, edited: shownEdit.value ?? edited,
                succeeded: succeeds,
                removedFromTheStore: meanwhile == 3, updatedMeanwhile: localMeanwhile?.revision))
    }

    /// What an optimistic edit left once its call ended: a committed update shows in every feed
    /// holding the item, a committed insert or removal stays its feed's own; a rollback shows the
    /// copy written while the call ran, or else the value from before (an update's, in every feed);
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
        if edit.kind == .update {
            checkSharedUpdate(edit, after, context)
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

    /// A settled update: every feed holding the item shows one value, the edit's when it was
    /// committed; after a rollback the copy written meanwhile (another feed's local update, or a
    /// server page's value) or the value from before.
    mutating func checkSharedUpdate(_ edit: OptimisticOutcome, _ after: [String: [SharedPost]], _ context: String) {
        let shown = Set(keys.compactMap { after[$0, default: []].first { $0.id == edit.id }?.revision })
        guard shown.count == 1, let value = shown.first else {
            fail("\(context): the feeds holding it show \(shown.sorted()), not one value")
            return
        }
        if edit.succeeded {
            expect(value == edit.edited, "\(context) shows \(value), not the edit \(edit.edited ?? -1)")
        } else if let updated = edit.updatedMeanwhile {
            expect(value == updated, "\(context) shows \(value), not the update made meanwhile \(updated)")
        } else {
            let allowed = [edit.before, server.revision(of: edit.id)].compactMap { $0 }
            expect(allowed.contains(value), "\(context) shows \(value), neither before nor the server's \(allowed)")
        }
        values.wrote(SharedPost(id: edit.id, revision: value))
    }
}
