import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The model's local writes: updates, inserts, removals from the whole store, optimistic edits, and
/// the second store's relaunch.
extension SharedItemsModel {
    /// A local update of one of the list's items: a write every feed holding it takes.
    mutating func update(in list: List, _ snapshot: FeedSnapshot<SharedPost>, step: Int) async throws -> Effect {
        guard let id = snapshot.ids.randomElement(using: &random) else { return Effect.none }
        let item = SharedPost(id: id, revision: 10_000 + step)
        try await list.feed.update(item)
        return Effect(acting: [list.key], writers: [list.key], fromServer: false, local: item)
    }

    /// A local insert of a post that other feeds hold and this one does not (a new one when there is
    /// none): a write that replaces their copies.
    mutating func insert(
        in list: List, _ snapshot: FeedSnapshot<SharedPost>, before: [String: [SharedPost]], step: Int
    ) async throws -> Effect {
        let mine = Set(before[list.key, default: []].map(\.id))
        let elsewhere = Set(before.values.joined().map(\.id)).subtracting(mine).sorted()
        let id = elsewhere.randomElement(using: &random) ?? "local\(step)"
        let item = SharedPost(id: id, revision: 20_000 + step)
        try await list.feed.insert(item, at: Int.random(in: 0...snapshot.rows.count, using: &random))
        return Effect(acting: [list.key], writers: [list.key], fromServer: false, local: item)
    }

    /// `store.remove(id:of:)` of an item some feeds hold, on either store: gone from every feed, each
    /// list seeing an exact deletion.
    mutating func removeFromTheStore(before: [String: [SharedPost]]) async throws -> Effect {
        let held = Set(before.values.joined().map(\.id)).sorted()
        guard let id = held.randomElement(using: &random) else { return Effect.none }
        let store = Int.random(in: 0..<stores.count, using: &random)
        let holders = before.values.filter { $0.contains { $0.id == id } }.count
        let removed = try stores[store].remove(id: id, of: SharedPost.self)
        #expect(removed == holders, "\(context): \(id) removed from \(removed) feeds, \(holders) held it")
        for list in lists { await list.feed.waitUntilIdle() }
        let after = try files()
        for key in keys where after[key, default: []].contains(where: { $0.id == id }) {
            Issue.record("\(context): \(key) still holds \(id), removed from the store")
        }
        return Effect(acting: [], writers: [], fromServer: false)
    }

    /// The second store closes with its lists and opens them again (an extension relaunched): they
    /// open at the file's rows, copies spread while they were away included.
    mutating func relaunchTheSecondStore() async throws -> Effect {
        let reopened = lists.filter { $0.store == 1 }.map(\.list)
        guard !reopened.isEmpty else { return Effect.none }
        for list in lists where list.store == 1 { await list.feed.waitUntilIdle() }
        stores[1].close()
        lists.removeAll { $0.store == 1 }
        stores[1] = try test.store()
        for list in reopened { lists.append(try await open(list, on: 1)) }
        return Effect.none
    }

    /// How an optimistic edit ended, for the checks once the step's writes are taken.
    struct OptimisticOutcome {
        let key: String
        let id: String
        /// The revision the feed showed before the edit.
        let before: Int
        let succeeded: Bool
    }

    /// An optimistic edit of one of the list's items, whose call lets another feed refresh, load a
    /// page or update the same item first (a copy that becomes the edit's base), then succeeds or
    /// fails. While the call runs, the feed and its file show the edit.
    mutating func optimisticEdit(in list: List, _ snapshot: FeedSnapshot<SharedPost>, step: Int) async throws -> Effect
    {
        let others = lists.filter { $0.key != list.key }
        guard let id = snapshot.ids.randomElement(using: &random),
            let shown = snapshot.rows.loadedItems.first(where: { $0.id == id })?.revision,
            let other = others.randomElement(using: &random)
        else { return Effect.none }
        let meanwhile = Int.random(in: 0..<4, using: &random)
        let otherHolds = await other.feed.snapshot.ids.contains(id)
        let succeeds = Bool.random(using: &random)
        let (feed, test, key) = (list.feed, test, list.key)
        let update = SharedPost(id: id, revision: 10_000 + step)
        let context = "\(context) step \(step): edit of \(id) in \(list.name), \(meanwhile) in \(other.name)"
        let call: @Sendable (SharedPost) async throws -> Void = { _ in
            switch meanwhile {
            case 0: await other.feed.refresh()
            case 1: await other.feed.loadNextPage()
            case 2: _ = try await other.feed.update(update)
            default: break
            }
            await other.feed.waitUntilIdle()
            let mine = await feed.snapshot.rows.loadedItems.first { $0.id == id }?.revision
            let stored = try test.itemsOnDisk(of: SharedPost.self, key: key).first { $0.id == id }?.revision
            #expect(mine == shown + 100_000, "\(context): the feed does not show its pending edit")
            #expect(stored == shown + 100_000, "\(context): the file does not hold the pending edit")
            if !succeeds { throw URLError(.badServerResponse) }
        }
        do {
            try await feed.edit(id: id, { $0.revision += 100_000 }, commit: call)
        } catch is URLError {
            #expect(try await feed.pendingEdits().isEmpty, "\(context): a failed call left its edit pending")
        }
        let wrote = meanwhile < 2 || (meanwhile == 2 && otherHolds)
        return Effect(
            acting: [list.key, other.key], writers: wrote ? [other.key] : [], fromServer: meanwhile < 2,
            local: meanwhile == 2 && otherHolds ? update : nil,
            edit: OptimisticOutcome(key: list.key, id: id, before: shown, succeeded: succeeds))
    }
}

extension SharedItemsModel.Effect {
    /// A step that wrote nothing.
    static var none: Self { Self(acting: [], writers: [], fromServer: false) }
}
