import Foundation
import PagedStoreFixtures
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// The shared status of a build whose type declares no searchable fields any more.
struct SharedPlainToot: FeedItem, Codable, Equatable {
    static let sharedItemType: String? = "toot"
    let id: String
    var content: String
}

/// A status of a build whose feed kept its own items, searchable by the same field as `SharedToot`.
struct OwnToot: FeedItem, Codable, Equatable {
    static let searchableFields = ["content"]
    let id: String
    var content: String
}

/// A status of a build that searches the author only.
struct AuthorToot: FeedItem, Codable, Equatable {
    static let searchableFields = ["account.display_name"]
    let id: String
    var content: String
    var account = Toot.Account(display_name: "Ada")
}

private struct Refused: Error {}

/// Hostile review of the search index: after each step the index must match the rows on disk, and
/// what a search finds must be what a plain scan of the rows finds.
@Suite(.limit(minutes: 2)) struct SearchAttackTests {
    let test: FeedTestCase
    let store: FeedStore

    init() throws {
        test = try FeedTestCase()
        store = try test.store()
    }

    // MARK: - Helpers

    /// A source whose one page is what `items` holds when it is asked.
    func source<Item: FeedItem>(_ items: Locked<[Item]>) -> ScriptedSource<Item> {
        .serving(items)
    }

    /// The ids of the rows on disk, in searchable feeds, whose searchable text (as their feed
    /// records the fields) holds `word` as a whole word, folded.
    func scanned(_ word: String, in store: FeedStore? = nil) throws -> Set<String> {
        try (store ?? self.store).queue.read { s in
            var ids = Set<String>()
            for feed in try s.feeds() where feed.searchFields != nil {
                let fields = s.searchFieldList(feed.searchFields ?? "")
                for row in try s.window(of: feed, from: .top, limit: Int.max) {
                    guard let text = SearchText(payload: row.payload, fields: fields) else { continue }
                    let words = SearchSegmentation.words(in: text.display).map {
                        SearchSegmentation.folded(String(text.display.unicodeScalars[$0.range]))
                    }
                    if words.contains(SearchSegmentation.folded(word)) { ids.insert(row.itemID) }
                }
            }
            return ids
        }
    }

    /// What the engine's search finds for the finished word `word` (no prefix), as ids; every
    /// match must show the word it matched on (no match without a highlight).
    func searched(
        _ word: String, in store: FeedStore? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String] {
        let matches = try (store ?? self.store).queue.read {
            try CachedSearch.find(word + " ", in: $0, feeds: nil, limit: 10_000)
        }
        for match in matches {
            let (text, ranges) = match.highlighted()
            #expect(
                !ranges.isEmpty, "\(match.id) found by \(word) shows text without it: \(text)",
                sourceLocation: sourceLocation)
        }
        return matches.map(\.id)
    }

    /// The index is as the rows, and each word is found exactly where a scan finds it, once.
    func expectSearchIsTheRows(
        _ words: [String], in store: FeedStore? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let differences = try (store ?? self.store).queue.read { try $0.searchIndexDifferences() }
        #expect(
            differences.orphans == 0 && differences.missing == 0 && differences.stale == 0, "verify: \(differences)",
            sourceLocation: sourceLocation)
        for word in words {
            let found = try searched(word, in: store, sourceLocation: sourceLocation)
            #expect(
                found.count == Set(found).count, "\(word): one result per item \(found)", sourceLocation: sourceLocation
            )
            let scan = try scanned(word, in: store)
            #expect(
                Set(found) == scan, "\(word): search \(found.sorted()) vs rows \(scan.sorted())",
                sourceLocation: sourceLocation)
        }
    }

    // MARK: - Optimistic and queued edits

    @Test func anOptimisticEditAndItsRollback() async throws {
        let items = Locked([Toot(id: "1", content: "otter"), Toot(id: "2", content: "heron")])
        let home = try store.feed("home", source: source(items), policy: FeedPolicy(refreshOnOpen: .never))
        await home.refresh()
        try expectSearchIsTheRows(["otter", "heron", "beaver"])
        await #expect(throws: Refused.self) {
            try await home.edit(id: "1") {
                $0.content = "beaver"
            } commit: { _ in
                try expectSearchIsTheRows(["otter", "heron", "beaver"])
                #expect(try searched("beaver") == ["1"])
                throw Refused()
            }
        }
        try expectSearchIsTheRows(["otter", "heron", "beaver"])
        #expect(try searched("otter") == ["1"])
        // An optimistic removal rolled back puts the document back.
        await #expect(throws: Refused.self) {
            try await home.remove(id: "2") { _ in
                try expectSearchIsTheRows(["heron"])
                throw Refused()
            }
        }
        try expectSearchIsTheRows(["otter", "heron"])
        #expect(try searched("heron") == ["2"])
        // An optimistic insert rolled back takes its document along.
        await #expect(throws: Refused.self) {
            try await home.insert(Toot(id: "3", content: "newt"), at: 0) { _ in
                #expect(try searched("newt") == ["3"])
                throw Refused()
            }
        }
        try expectSearchIsTheRows(["otter", "heron", "newt"])
    }

    @Test func aQueuedEditPendingThroughARefreshThenRejected() async throws {
        let items = Locked([Toot(id: "1", content: "otter"), Toot(id: "2", content: "heron")])
        let home = try store.feed("home", source: source(items), policy: FeedPolicy(refreshOnOpen: .never))
        await home.refresh()
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        try expectSearchIsTheRows(["otter", "beaver"])
        #expect(try searched("beaver") == ["1"])
        // The server still says otter, with fresher text: the edit goes again on it.
        items.value = [Toot(id: "1", content: "otter swims"), Toot(id: "2", content: "heron")]
        await home.refresh()
        try expectSearchIsTheRows(["otter", "beaver", "swims"])
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await store.outbox.waitUntilEmpty()
        #expect(await home.firstSnapshot { $0.rows[0]?.content == "otter swims" } != nil)
        try expectSearchIsTheRows(["otter", "beaver", "swims"])
        #expect(try searched("swims") == ["1"])
    }

    // MARK: - Shared items

    /// Feeds "home" and "profile" of shared items, refreshed: each lists `items`, or profile
    /// `profileItems` when given.
    func openShared(
        _ items: Locked<[SharedToot]>, profile profileItems: Locked<[SharedToot]>? = nil
    ) async throws -> (Feed<SharedToot>, Feed<SharedToot>) {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let home = try store.feed("home", source: source(items), policy: policy)
        let profile = try store.feed("profile", source: source(profileItems ?? items), policy: policy)
        await home.refresh()
        await profile.refresh()
        return (home, profile)
    }

    @Test func aSharedItemUpdatedInOneFeedIsFoundByItsNewestText() async throws {
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let (home, profile) = try await openShared(items)
        #expect(try await profile.update(SharedToot(id: "1", content: "beaver")))
        #expect(await home.firstSnapshot { $0.rows[0]?.content == "beaver" } != nil)
        try expectSearchIsTheRows(["otter", "beaver"])
        // A fresher server copy fetched by the other feed.
        items.value = [SharedToot(id: "1", content: "walrus")]
        await home.refresh()
        try expectSearchIsTheRows(["otter", "beaver", "walrus"])
        #expect(try store.remove(id: "1", of: SharedToot.self) == 2)
        try expectSearchIsTheRows(["otter", "beaver", "walrus"])
        #expect(try searched("walrus").isEmpty)
    }

    /// A queued edit of a shared item made in "profile", then a refresh of "home" that brings the
    /// server's (unedited) copy: every row shows the edit again, so search must find the edit.
    @Test func aSharedItemWithAPendingEditInAnotherFeedRefreshedByTheFirst() async throws {
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let (home, profile) = try await openShared(items)
        try await profile.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        #expect(await home.firstSnapshot { $0.rows[0]?.content == "beaver" } != nil)
        try expectSearchIsTheRows(["otter", "beaver"])
        items.value = [SharedToot(id: "1", content: "otter again")]
        await home.refresh()
        #expect(await home.snapshot.rows[0]?.content == "beaver", "the pending edit shows")
        try expectSearchIsTheRows(["otter", "beaver", "again"])
    }

    /// The same with an optimistic edit (a closure's call pending) in "profile".
    @Test func aSharedItemWithAPendingOptimisticEditInAnotherFeed() async throws {
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let (home, profile) = try await openShared(items)
        let edit = await HeldRefusedEdit(of: "1", in: profile) { $0.content = "beaver" }
        items.value = [SharedToot(id: "1", content: "otter again")]
        await home.refresh()
        try expectSearchIsTheRows(["otter", "beaver", "again"])
        await edit.refuse()
        try expectSearchIsTheRows(["otter", "beaver", "again"])
    }

    @Test func aSharedTypeThatStopsDeclaringFieldsLeavesNoDocuments() async throws {
        let items = Locked([SharedToot(id: "1", content: "otter")])
        _ = try await openShared(items)
        #expect(try searched("otter") == ["1"])
        // The next build's type declares nothing, with a new model: both feeds open with it.
        let relaunched = try test.store()
        let plain = Locked([SharedPlainToot(id: "1", content: "otter")])
        let policy = FeedPolicy(refreshOnOpen: .never, cacheVersion: 1)
        _ = try relaunched.feed("home", source: source(plain), policy: policy)
        _ = try relaunched.feed("profile", source: source(plain), policy: policy)
        let documents = try relaunched.queue.read { try $0.connection.integer("SELECT count(*) FROM search_doc") }
        #expect(documents == 0, "no feed is searchable any more")
        #expect(try relaunched.search("otter", as: SharedToot.self).isEmpty)
        try expectSearchIsTheRows(["otter"], in: relaunched)
    }

    /// A widget's model: the content only, neither shared nor searchable.
    struct WidgetToot: FeedItem, Codable, Equatable {
        let id: String
        var content: String
    }

    @Test func anExtensionWhoseModelDeclaresNothingKeepsTheFeedSharedAndSearchable() async throws {
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let (_, profile) = try await openShared(items)
        let widget = try test.store().feed(
            "home", source: ScriptedSource<WidgetToot>(), policy: FeedPolicy(refreshOnOpen: .never))
        #expect(try await widget.update(WidgetToot(id: "1", content: "beaver")))
        #expect(await profile.firstSnapshot { $0.rows[0]?.content == "beaver" } != nil, "the copy still spreads")
        #expect(try searched("beaver") == ["1"])
        #expect(try searched("otter").isEmpty)
        try expectSearchIsTheRows(["otter", "beaver"])
        let recorded = try store.queue.read { try $0.feed(key: "home") }
        #expect(recorded?.sharedType == "toot" && recorded?.searchFields != nil)
    }

    @Test func aFeedThatStartsSharingItsItemsMovesItsDocuments() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let own = Locked([OwnToot(id: "1", content: "otter")])
        let home = try store.feed("home", source: source(own), policy: policy)
        await home.refresh()
        #expect(try searched("otter") == ["1"])
        // The next build shares the items, with the same searchable fields.
        let relaunched = try test.store()
        let shared = Locked([SharedToot(id: "1", content: "otter")])
        _ = try relaunched.feed("home", source: source(shared), policy: policy)
        let profile = try relaunched.feed("profile", source: source(shared), policy: policy)
        await profile.refresh()
        try expectSearchIsTheRows(["otter"], in: relaunched)
        #expect(try relaunched.search("otter", as: SharedToot.self).count == 1, "a shared item is one result")
        #expect(try store.remove(id: "1", of: SharedToot.self) == 2)
        try expectSearchIsTheRows(["otter"], in: relaunched)
    }

    /// As `aRejectedDetachedEditOfASharedItemLeavesNoFeedShowingIt`: the edit detaches by a new cache
    /// version of home; its rejection makes profile's row show the base by replaceSharedCopy.
    @Test func aRejectedDetachedEditAfterANewCacheVersionIsNotFoundByItsText() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let (home, profile) = try await openShared(items)
        try await home.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        #expect(await profile.firstSnapshot { $0.rows[0]?.content == "beaver" } != nil)
        store.close()
        let relaunched = try test.store()
        _ = try relaunched.feed(
            "home", source: source(items), policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 1))
        _ = try relaunched.feed("profile", source: source(items), policy: policy)
        try expectSearchIsTheRows(["otter", "beaver"], in: relaunched)
        await relaunched.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 409") }
        await relaunched.outbox.waitUntilEmpty()
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").first?.content == "otter")
        try expectSearchIsTheRows(["otter", "beaver"], in: relaunched)
    }

    /// A queued edit of a shared item whose row a refresh of its own feed proved deleted, then
    /// rejected, with its feed open or settled by the outbox alone: the other feed shows the
    /// server's copy again, and search finds it by that text.
    @Test(arguments: [true, false])
    func aRejectedEditOfASharedItemWhoseRowAPageProvedDeletedRestoresTheOtherFeedsCopy(
        homeStaysOpen: Bool
    )
        async throws
    {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let homeItems = Locked([SharedToot(id: "1", content: "otter"), SharedToot(id: "2", content: "heron")])
        let profileItems = Locked([SharedToot(id: "1", content: "otter")])
        var home: Feed<SharedToot>? = try store.feed("home", source: source(homeItems), policy: policy)
        let profile = try store.feed("profile", source: source(profileItems), policy: policy)
        await home?.refresh()
        await profile.refresh()
        try await home?.enqueue("revise", id: "1", argument: Revision(revision: 1)) { $0.content = "beaver" }
        #expect(await profile.firstSnapshot { $0.rows[0]?.content == "beaver" } != nil)
        // The server no longer lists it in home: the row leaves, the queued edit stays.
        homeItems.value = [SharedToot(id: "3", content: "newt"), SharedToot(id: "2", content: "heron")]
        await home?.refresh()
        #expect(await home?.snapshot.rows.compactMap { $0?.id } == ["3", "2"])
        try expectSearchIsTheRows(["otter", "beaver"])
        if !homeStaysOpen { home = nil }
        await store.outbox.register("revise", as: Revision.self) { _ in .rejected(reason: "HTTP 403") }
        await store.outbox.waitUntilEmpty()
        #expect(await profile.firstSnapshot { $0.rows[0]?.content == "otter" } != nil)
        #expect(try test.itemsOnDisk(of: SharedToot.self, key: "profile").first?.content == "otter")
        try expectSearchIsTheRows(["otter"])
        _ = home
    }

    /// New fields recorded: until the backlog is indexed, the old documents (of fields the type no
    /// longer declares) are still found.
    @Test func fieldsChangedBeforeTheBacklogRuns() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let toots = Locked([Toot(id: "1", content: "otter", account: .init(display_name: "Grace"))])
        let home = try store.feed("home", source: source(toots), policy: policy)
        await home.refresh()
        let relaunched = try test.store()
        let authors = Locked([AuthorToot(id: "1", content: "otter", account: .init(display_name: "Grace"))])
        _ = try relaunched.feed("home", source: source(authors), policy: policy)
        #expect(try searched("otter", in: relaunched).isEmpty, "otter is in no declared field any more")
    }

    /// A new cache version while the backlog waits: the feed is emptied, its backlog must go too, or
    /// verify stops seeing the new rows (they count as backlog).
    @Test func aCacheVersionChangeWhileTheBacklogWaits() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let plain = try store.feed(
            "home", source: source(Locked((0..<5).map { PlainToot(id: "p\($0)", content: "old") })), policy: policy)
        await plain.refresh()
        let relaunched = try test.store()
        // Recorded searchable: the five rows wait in the backlog (no start()).
        _ = try relaunched.feed("home", source: source(Locked([Toot]())), policy: policy)
        #expect(try relaunched.queue.read { try $0.feed(key: "home")?.searchBacklog } != nil)
        let third = try test.store()
        let fresh = (0..<5).map { Toot(id: "n\($0)", content: "otter") }
        let home = try third.feed(
            "home", source: source(Locked(fresh)), policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 2))
        await home.refresh()
        #expect(try third.queue.read { try $0.feed(key: "home")?.searchBacklog } == nil, "nothing waits")
        _ = try third.queue.write { try $0.connection.run("DELETE FROM search_doc WHERE item_id = 'n2'") }
        let differences = try third.queue.read { try $0.searchIndexDifferences() }
        #expect(differences.missing == 1, "verify sees the row the index misses: \(differences)")
    }

    // MARK: - Fields changed between launches

    @Test func fieldsChangedBetweenLaunchesReindexOnceStarted() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let toots = Locked([Toot(id: "1", content: "otter", account: .init(display_name: "Grace"))])
        let home = try store.feed("home", source: source(toots), policy: policy)
        await home.refresh()
        #expect(try searched("otter") == ["1"])
        let relaunched = try test.store()
        let authors = Locked([AuthorToot(id: "1", content: "otter", account: .init(display_name: "Grace"))])
        let reopened = try relaunched.feed("home", source: source(authors), policy: policy)
        let events = await reopened.events
        await reopened.start()
        for await event in events where event.kind == .searchIndexed { break }
        try expectSearchIsTheRows(["otter", "grace"], in: relaunched)
        #expect(try searched("otter", in: relaunched).isEmpty)
        #expect(try searched("grace", in: relaunched) == ["1"])
        // A type that declares nothing (an extension's) leaves the index as the app's type made it.
        let widget = try test.store()
        _ = try widget.feed("home", source: source(Locked([PlainToot(id: "1", content: "otter")])), policy: policy)
        #expect(try searched("grace", in: widget) == ["1"])
        // Removed altogether, by a build with a new model (a new cache version).
        let third = try test.store()
        let newModel = FeedPolicy(refreshOnOpen: .never, cacheVersion: 1)
        _ = try third.feed("home", source: source(Locked([PlainToot(id: "1", content: "otter")])), policy: newModel)
        #expect(try third.queue.read { try $0.connection.integer("SELECT count(*) FROM search_doc") } == 0)
    }

    // MARK: - Writers that bypass PagedStore

    /// `sqlite3` by hand changes one row and deletes another: `verify` sees the index differ, and
    /// the feed's next start indexes the noted rows again, in the background.
    @Test func rowsAnotherProgramChangedAreIndexedAgainWhenAFeedNextStarts() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let toots = Locked([
            Toot(id: "1", content: "otter"), Toot(id: "2", content: "heron"), Toot(id: "3", content: "newt"),
        ])
        await (try store.feed("home", source: source(toots), policy: policy)).refresh()
        store.close()
        try ForeignWriter.execute(
            #"""
            UPDATE item SET payload = '{"id":"1","content":"beaver","account":{"display_name":"Ada"}}' WHERE item_id = '1';
            DELETE FROM item WHERE item_id = '2';
            """#, on: test.path)
        let relaunched = try test.store()
        let before = try relaunched.queue.read { try $0.searchIndexDifferences() }
        #expect(before.stale == 1 && before.orphans == 1, "verify: \(before)")
        let home = try relaunched.feed("home", source: source(toots), policy: policy)
        let events = await home.events
        await home.start()
        for await event in events where event.kind == .searchIndexed { break }
        try expectSearchIsTheRows(["otter", "heron", "newt", "beaver"], in: relaunched)
        #expect(try searched("beaver", in: relaunched) == ["1"])
        #expect(try relaunched.queue.read { try $0.searchIndexNeedsRepair() } == false)
    }

    /// A shared item's row deleted by hand in one feed: its one document stays, for the other
    /// feed's row; deleted in both, it goes.
    @Test func aSharedItemDeletedByHandKeepsItsDocumentWhileAnotherFeedShowsIt() async throws {
        let items = Locked([SharedToot(id: "1", content: "otter")])
        let (home, _) = try await openShared(items)
        _ = home
        store.close()
        try ForeignWriter.execute(
            "DELETE FROM item WHERE item_id = '1' AND feed_id = (SELECT id FROM feed WHERE key = 'home')", on: test.path
        )
        let relaunched = try test.store()
        try await repaired(relaunched, items)
        #expect(try searched("otter", in: relaunched) == ["1"])
        relaunched.close()
        try ForeignWriter.execute("DELETE FROM item WHERE item_id = '1'", on: test.path)
        let third = try test.store()
        try await repaired(third, items)
        #expect(try searched("otter", in: third).isEmpty)
    }

    /// Starts the home feed of `store` and waits for its repair of the search index.
    func repaired(_ store: FeedStore, _ items: Locked<[SharedToot]>) async throws {
        let home = try store.feed("home", source: source(items), policy: FeedPolicy(refreshOnOpen: .never))
        let events = await home.events
        await home.start()
        for await event in events where event.kind == .searchIndexed { break }
        try expectSearchIsTheRows(["otter"], in: store)
    }

    // MARK: - Rows removed by the engine

    @Test func undecodableRowsAreRemovedWithTheirDocuments() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let toots = Locked([Toot(id: "1", content: "otter"), Toot(id: "2", content: "heron")])
        let home = try store.feed("home", source: source(toots), policy: policy)
        await home.refresh()
        _ = try store.queue.write { store in
            try store.connection.run("UPDATE item SET payload = '{\"id\": 7}' WHERE item_id = '2'")
        }
        // A row edited by hand: its document still holds "heron".
        let afterHand = try store.queue.read { try $0.searchIndexDifferences() }
        #expect(afterHand.stale == 1, "verify reports the document no row's text shows: \(afterHand)")
        let relaunched = try test.store()
        let reopened = try relaunched.feed("home", source: source(toots), policy: policy)
        #expect(await reopened.snapshot.rows.count == 1)
        try expectSearchIsTheRows(["otter", "heron"], in: relaunched)
    }

    @Test func budgetEvictionsAndCacheVersionsTakeTheDocuments() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let filling = try test.store()
        let keys = (0..<4).map { "feed\($0)" }
        for key in keys {
            let toots = (0..<200).map {
                Toot(id: "\(key)-\($0)", content: "otter \(String(repeating: "padding ", count: 60))")
            }
            let feed = try filling.feed(key, source: source(Locked(toots)), policy: policy)
            await feed.refresh()
        }
        try DatabaseQueue(path: test.path).write { store in
            for (hours, key) in keys.enumerated() {
                guard let feed = try store.feed(key: key) else { continue }
                try store.recordOpened(feed, at: Date() - TimeInterval(hours * 3_600))
            }
        }
        filling.close()
        let budgeted = try FeedStore(path: test.path, budget: StoreBudget(maxBytes: 300_000))
        let done = try budgeted.keepWithinBudget()
        #expect(done.contains { $0.kind == .evictedOverBudget })
        try expectSearchIsTheRows(["otter", "padding"], in: budgeted)
        _ = try budgeted.feed(
            "feed0", source: source(Locked([Toot]())), policy: FeedPolicy(refreshOnOpen: .never, cacheVersion: 9))
        try expectSearchIsTheRows(["otter"], in: budgeted)
    }

    // MARK: - Seeds

    @Test func aSeedIntoASearchableFeedThatHasRows() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let home = try store.feed("home", source: source(Locked([Toot(id: "1", content: "otter")])), policy: policy)
        await home.refresh()
        let page = FixturePage(
            items: [
                .init(
                    id: "2", section: nil,
                    json: Data(#"{"id":"2","content":"heron","account":{"display_name":"Ada"}}"#.utf8)),
                .init(
                    id: "1", section: nil,
                    json: Data(#"{"id":"1","content":"changed","account":{"display_name":"Ada"}}"#.utf8)),
            ], olderCursor: nil, newerCursor: nil)
        try store.queue.write { store in _ = try store.seed([page], into: "home") }
        try expectSearchIsTheRows(["otter", "heron", "changed"])
    }

    /// `pagedb sync` and `pagedb apply` open the feed with `JSONItem`, whose type declares no fields:
    /// the app's searchable feed must stay searchable, its new rows indexed.
    @Test func aPagedbSyncOfASearchableFeedKeepsItSearchable() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let home = try store.feed("home", source: source(Locked([Toot(id: "1", content: "otter")])), policy: policy)
        await home.refresh()
        #expect(try searched("otter") == ["1"])
        let pagedb = try test.store()
        let json = #"{"id":"2","content":"heron","account":{"display_name":"Ada"}}"#
        let synced = try pagedb.feedAsRecorded(
            "home",
            source: ScriptedSource<JSONItem> { _ in
                Page(items: [JSONItem(FixtureItem(id: "2", section: nil, json: Data(json.utf8)))], olderCursor: nil)
            }, codec: JSONItem.codec, adjustingPolicy: { $0.refreshOnOpen = .never })
        await synced.refresh()
        #expect(try pagedb.queue.read { try $0.feed(key: "home")?.searchFields } != nil, "still searchable")
        #expect(try searched("heron") == ["2"])
        try expectSearchIsTheRows(["otter", "heron"])
    }

    // MARK: - Writers that bypass the engine

    @Test func aVacuumAndRowsDeletedByHand() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let toots = (0..<20).map { Toot(id: "\($0)", content: "otter number\($0)") }
        let home = try store.feed("home", source: source(Locked(toots)), policy: policy)
        await home.refresh()
        let raw = try PageStore(path: test.path)
        try raw.connection.execute("DELETE FROM item WHERE item_id IN ('3', '19')")
        try raw.connection.execute("VACUUM")
        let differences = try store.queue.read { try $0.searchIndexDifferences() }
        #expect(differences.orphans == 2 && differences.missing == 0)
        #expect(try Set(searched("otter")) == Set((0..<20).map(String.init)).subtracting(["3", "19"]))
        // Documents deleted by hand, their FTS rows left: the rowids come back for new documents.
        try raw.connection.execute("DELETE FROM search_doc WHERE doc = (SELECT max(doc) FROM search_doc)")
        _ = try store.queue.write { try $0.rebuildSearchIndex() }
        try expectSearchIsTheRows(["otter", "number5"])
        try raw.connection.execute(
            "DELETE FROM search_doc WHERE doc = (SELECT max(doc) FROM search_doc)")
        #expect(try await home.update(Toot(id: "0", content: "walrus")))
        #expect(try searched("walrus") == ["0"])
        let stray = try store.queue.read { try CachedSearch.find("otter", in: $0, feeds: nil, limit: 100) }
        for match in stray {
            let (text, ranges) = match.highlighted()
            #expect(!ranges.isEmpty, "\(match.id): \(text)")
        }
    }

    @Test func aRowEditedByHandIsReportedByVerify() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let home = try store.feed("home", source: source(Locked([Toot(id: "1", content: "otter")])), policy: policy)
        await home.refresh()
        let raw = try PageStore(path: test.path)
        try raw.connection.execute(
            #"UPDATE item SET payload = '{"id":"1","content":"walrus","account":{"display_name":"Ada"}}'"#)
        let differences = try store.queue.read { try $0.searchIndexDifferences() }
        #expect(differences.stale == 1, "verify: \(differences)")
        #expect(try store.queue.read { try $0.verify() }.contains { $0.rule == "search_index" })
    }

    @Test func twoStoresOnOneFile() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let other = try test.store()
        let items = Locked([Toot(id: "1", content: "otter")])
        let home = try store.feed("home", source: source(items), policy: policy)
        await home.refresh()
        let homeToo = try other.feed("home", source: source(items), policy: policy)
        #expect(try await homeToo.update(Toot(id: "1", content: "beaver")))
        try expectSearchIsTheRows(["otter", "beaver"])
        items.value = [Toot(id: "1", content: "heron")]
        await home.refresh()
        try expectSearchIsTheRows(["otter", "beaver", "heron"], in: other)
    }

    // MARK: - Hostile queries

    @Test(arguments: [
        "🙂", "x\u{0}y", "\u{0}", String(repeating: "a", count: 10_000), String(repeating: "東", count: 10_000),
        String(repeating: "a ", count: 5_000), String(repeating: "AND ", count: 2_500),
        String(repeating: "\"", count: 10_000), String(repeating: "(", count: 10_000),
        String(repeating: "e\u{301}", count: 5_000), "\u{301}\u{301}", "ｏｔｔｅｒ", "𠀀𠀁", "a\u{200D}b",
        String(repeating: "otter ", count: 1_700),
    ])
    func hostileQueries(text: String) async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let home = try store.feed(
            "home", source: source(Locked([Toot(id: "1", content: "otter 東京 café AND")])), policy: policy)
        await home.refresh()
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: Never.self) { _ = try store.search(text, as: Toot.self) }
        #expect(throws: Never.self) { _ = try store.search(text, as: Toot.self, order: .recency, limit: .max) }
        #expect(clock.now - start < .seconds(5), "\(text.prefix(20)): \(clock.now - start)")
    }

    @Test func hugeAndOddLimits() async throws {
        let policy = FeedPolicy(refreshOnOpen: .never)
        let home = try store.feed(
            "home", source: source(Locked((0..<30).map { Toot(id: "\($0)", content: "otter") })), policy: policy)
        await home.refresh()
        #expect(try store.search("otter", as: Toot.self, limit: .max).count == 30)
        #expect(try store.search("otter", as: Toot.self, limit: 0).isEmpty)
        #expect(try store.search("otter", as: Toot.self, limit: -1).isEmpty)
        #expect(try store.search("otter", as: Toot.self, limit: .min).isEmpty)
        #expect(try store.search("otter", as: Toot.self, in: []).isEmpty)
        #expect(try store.search("otter", as: Toot.self, in: ["nope"]).isEmpty)
    }
}
