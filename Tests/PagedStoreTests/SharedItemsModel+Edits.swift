import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The model's local writes: updates, inserts, removals from the whole store, and the second
/// store's relaunch.
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
        expect(removed == holders, "\(context): \(id) removed from \(removed) feeds, \(holders) held it")
        for list in lists { await list.feed.waitUntilIdle() }
        let after = try files()
        for key in keys where after[key, default: []].contains(where: { $0.id == id }) {
            fail("\(context): \(key) still holds \(id), removed from the store")
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
        if bothStoresSend { await answers.register(on: stores[1], as: 1) }
        for list in reopened { lists.append(try await open(list, on: 1)) }
        return Effect.none
    }
}

extension SharedItemsModel.Effect {
    /// A step that wrote nothing.
    static var none: Self { Self(acting: [], writers: [], fromServer: false) }
}
