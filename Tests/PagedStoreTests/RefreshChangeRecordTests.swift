import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// Every kind of refresh leaves a change record that chains from the feed's row before it to the
/// row after, which a second store's list follows exactly, for a feed of its own items and one of a
/// shared type.
@Suite(.limit(minutes: 2)) struct RefreshChangeRecordTests {
    /// Refreshes of every kind (new items, nothing new, reloads, trims to maxRows, newer pages, with a
    /// pending edit) while a second store's list of the feed follows each exactly.
    @Test(arguments: [false, true])
    func aSecondStoreFollowsEveryKindOfRefreshExactly(newerThanHead: Bool) async throws {
        let test = try FeedTestCase()
        let list = Locked([Post]())
        let source = ScriptedSource<Post> { request in
            let all = list.value
            switch request {
            case .newerThan:
                return Page(items: Array(all.prefix(5)), olderCursor: nil, newerCursor: "n")
            default:
                return Page(items: Array(all.prefix(10)), olderCursor: all.count > 10 ? "o" : nil, newerCursor: "n")
            }
        }
        let policy = FeedPolicy(
            refreshOnOpen: .never, refreshMode: newerThanHead ? .newerThanHead(maxPages: 2) : .firstPage,
            maxRows: 12)
        let writer = try test.feed(source, policy: policy)
        let readerStore = try test.store()
        let reader = try test.feed(
            ScriptedSource<Post> { _ in Page(items: [], olderCursor: nil) }, policy: policy, store: readerStore)
        let events = await reader.events
        list.mutate { $0 = .posts("a", 10) }
        await writer.refresh()
        var revision = 0
        for step in 0..<8 {
            revision += 1
            list.mutate { all in
                switch step % 4 {
                case 0: all = [Post].posts("n\(step)-", 3) + all  // new on top
                case 1: break  // nothing new
                case 2: all[1].revision = revision  // a reload in the head
                default: all = [Post].posts("m\(step)-", 6) + all  // new, trimmed by maxRows
                }
            }
            if step == 5 {
                // An edit pending while the next refresh commits.
                let id = await writer.snapshot.ids.first
                if let id {
                    let gate = AsyncStream<Void>.makeStream()
                    let editing = Task {
                        try await writer.edit(
                            id: id, { $0.revision = 999 },
                            commit: { _ in
                                for await _ in gate.stream { break }
                            })
                    }
                    _ = await writer.firstSnapshot { $0.rows.loadedRange.contains(0) && $0.rows[0]?.revision == 999 }
                    await writer.refresh()
                    gate.continuation.yield()
                    gate.continuation.finish()
                    _ = try? await editing.value
                    try test.expectChangeRecordChains("home", "step \(step) with a pending edit")
                    continue
                }
            }
            await writer.refresh()
            try test.expectChangeRecordChains("home", "step \(step)")
        }
        let fileIDs = try test.idsOnDisk()
        let followed = await reader.firstSnapshot { $0.ids == fileIDs }
        #expect(followed != nil)
        try SecondWriterChecks.rowsEqualTheFile(await reader.snapshot, test, "reader")
        var kinds: [FeedEvent.Kind] = []
        for await event in events {
            if event.kind == .followedOtherWriter || event.kind == .reloadedFromFile { kinds.append(event.kind) }
            if kinds.count >= 1 { break }
        }
        #expect(!kinds.contains(.reloadedFromFile), "\(kinds)")
    }

    /// A refresh of a feed of a shared type whose items another open feed holds: both feeds' change
    /// records chain and the other list shows the file's values.
    @Test func aSharedTypeRefreshSpreadsAndBothRecordsChain() async throws {
        let test = try FeedTestCase()
        let store = try test.store()
        let revision = Locked(0)
        func source(_ prefix: String) -> ScriptedSource<SharedPost> {
            ScriptedSource { _ in
                let r = revision.value
                return Page(
                    items: (0..<40).map { SharedPost(id: "p\($0 + (r % 3 == 2 ? 0 : 0))", revision: r) }
                        + [SharedPost(id: "\(prefix)-own\(r)", revision: r)],
                    olderCursor: "o")
            }
        }
        let policy = FeedPolicy(refreshOnOpen: .never, maxRows: 35)
        let home = try store.feed("home", source: source("home"), policy: policy)
        let profile = try test.store().feed(
            "profile", source: source("profile"), policy: FeedPolicy(refreshOnOpen: .never))
        await home.refresh()
        await profile.refresh()
        for step in 1...5 {
            revision.value = step
            await home.refresh()
            try test.expectChangeRecordChains("home", "home step \(step)")
            try test.expectChangeRecordChains("profile", "profile step \(step)")
        }
        let onDisk = try test.itemsOnDisk(of: SharedPost.self, key: "profile")
        let shown = await profile.firstSnapshot { snapshot in
            snapshot.rows.loadedRange.map { snapshot.rows[$0] }
                == onDisk.prefix(snapshot.rows.loadedRange.count).map { $0 }
        }
        #expect(shown != nil)
        #expect(
            onDisk.filter { $0.id.hasPrefix("p") && !$0.id.contains("own") }.allSatisfy { $0.revision == 5 },
            "\(onDisk.map(\.revision))")
    }

}
