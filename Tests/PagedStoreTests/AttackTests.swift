import Foundation
import Testing

@testable import PagedStore

/// Hostile tests of the issue-10 integrity work: sequences the reference model does not generate,
/// two stores on one file, and cache files edited behind the engine's back. Each test names the
/// behaviour it expects and fails on the code as it was attacked.
@Suite struct AttackTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    // MARK: - Server items moving up

    /// Found: a refresh whose page holds a row "bumped" from the second page to the top (a thread
    /// with a new reply) rewrites the head through the bumped row's old place and deletes every row
    /// between the page's end and that place (p9…p14), though the server still lists them; the older
    /// cursor stays below them, so scrolling to the end never fetches them (Rule 3: only rows the
    /// server no longer lists *within the overlap* are deletions). RefreshMerge.plan `.rewrite`.
    @Test func aRowBumpedToTheTopFromTheSecondPageSkipsNoServerItem() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let feed = try test.feed(server.source)
        await feed.refresh()
        await feed.loadNextPage()
        #expect(await feed.snapshot.ids.count == 20)
        var items = server.items
        let bumped = items.remove(at: 15)
        server.items = [bumped] + items
        let before = await feed.snapshot
        await feed.refresh()
        let after = await feed.snapshot
        #expect(try ChangeApplier.apply(after.change, to: before.ids, new: after.ids) == after.ids)
        try await scrollToTheEnd(feed)
        let shown = await feed.snapshot.ids
        #expect(shown == server.items.map(\.id), "every server item, once, in order")
    }

    /// Found: the same rewrite across a gap. A row from below a keepGap gap moves to the top; the
    /// rewrite deletes the gap with the head, so the rows the gap stood for are never fetched.
    @Test func aRowBumpedFromBelowAGapKeepsTheGapsRowsFetchable() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let policy = FeedPolicy(refreshOnOpen: .never, gapPolicy: .keepGap)
        let feed = try test.feed(server.source, policy: policy)
        await feed.refresh()
        server.items = .posts("n", 15) + server.items
        await feed.refresh()
        #expect(await feed.snapshot.gaps.count == 1)
        var items = server.items
        let bumped = items.remove(at: items.firstIndex { $0.id == "p0" }!)
        server.items = [bumped] + items
        await feed.refresh()
        try await scrollToTheEnd(feed)
        let shown = await feed.snapshot.ids
        #expect(shown == server.items.map(\.id), "n9…n14 were skipped with the gap")
    }

    // MARK: - Two stores (processes) on one file

    /// Found: when another store (an app extension, a second process) loads the feed's next page,
    /// this feed's next page is `superseded` (its cursor no longer matches the file) but its record is
    /// never read again, so every later next page asks with the same stale cursor and is superseded
    /// too: the feed never reaches the end. Feed+NextPage.swift commitNextPage `.superseded`.
    @Test func aFeedCatchesUpWhenAnotherStoreLoadedItsNextPage() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mine = try test.feed(server.source)
        await mine.refresh()
        let other = try test.feed(server.source)  // a second store on the same file
        await other.loadNextPage()
        #expect(try test.idsOnDisk().count == 20)
        for _ in 0..<5 where await mine.snapshot.nextPage != .endReached { await mine.loadNextPage() }
        let snapshot = await mine.snapshot
        #expect(snapshot.nextPage == .endReached, "stuck at \(snapshot.ids.count) rows, next page \(snapshot.nextPage)")
        #expect(snapshot.ids == server.items.map(\.id))
    }

    /// Found: a local edit commits a change computed on the file's rows, and the feed applies it to
    /// the rows it holds in memory. When another store changed the feed meanwhile (here: removed one
    /// row and inserted one, so the count is unchanged), the change is a plain reload that does not
    /// turn the previous snapshot into the new one. Feed+Edits.swift edit / Feed+Commit.swift apply.
    @Test func aLocalEditsChangeAppliesAfterAnotherStoreEditedTheFeed() async throws {
        let server = ModelServer(.posts("p", 30), pageSize: 10)
        let mine = try test.feed(server.source)
        await mine.refresh()
        let other = try test.feed(server.source)
        try await other.remove(id: "p3")
        try await other.insert(Post(id: "x"), at: 0)
        let before = await mine.snapshot
        try await mine.update(Post(id: "p5", revision: 1))
        let after = await mine.snapshot
        #expect(after.ids == (try test.idsOnDisk()))
        #expect(try ChangeApplier.apply(after.change, to: before.ids, new: after.ids) == after.ids)
    }

    // MARK: - Helpers

    func scrollToTheEnd(_ feed: Feed<Post>) async throws {
        for _ in 0..<100 {
            let snapshot = await feed.snapshot
            if let gap = snapshot.gaps.first {
                await feed.loadGap(gap)
                continue
            }
            if snapshot.nextPage == .endReached { return }
            await feed.loadNextPage()
            if case .failed(let error) = await feed.snapshot.nextPage {
                Issue.record("next page failed: \(error)")
                return
            }
        }
    }
}
