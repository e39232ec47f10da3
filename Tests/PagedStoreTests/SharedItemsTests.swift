import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore
@testable import PagedStoreFixtures

/// One item in many lists: a post in the home timeline and in a profile is one post. A fresher copy
/// written by either (a refresh, a next page, a local update) shows in both, in one transaction, and
/// each open list shows it as a reload at its own row.
@Suite(.limit()) struct SharedItemsTests {
    let test: FeedTestCase
    init() throws { test = try FeedTestCase() }

    func feed<Item: FeedItem & Codable>(
        _ source: ScriptedSource<Item>, key: String, store: FeedStore
    ) throws -> Feed<Item> {
        try store.feed(key, source: source, policy: FeedPolicy(refreshOnOpen: .never))
    }

    /// The revision of `id` in the feed `key` as a fresh connection reads the file.
    func revisionOnDisk(_ id: String, key: String) throws -> Int? {
        try test.itemsOnDisk(of: SharedPost.self, key: key).first { $0.id == id }?.revision
    }

    @Test func aRefreshInOneFeedShowsTheNewCopyInEveryOtherOpenFeedAtItsOwnRow() async throws {
        let home = ModelServer(.posts("p", 6), pageSize: 10)
        let profile = ModelServer([Post(id: "x0"), Post(id: "p3"), Post(id: "x1")], pageSize: 10)
        let store = try test.store()
        let homeFeed = try feed(home.sharedSource, key: "home", store: store)
        let profileFeed = try feed(profile.sharedSource, key: "profile", store: store)
        await homeFeed.refresh()
        await profileFeed.refresh()
        let recorder = await SnapshotRecorder(profileFeed)

        home.items[3].revision = 7  // the post was edited on the server; the home timeline sees it first
        await homeFeed.refresh()

        let shown = await profileFeed.firstSnapshot { $0.rows[1]?.revision == 7 }
        #expect(shown?.change.reloadedRows == [IndexPath(indexes: [0, 1])])
        #expect(shown?.change.reconfiguredIDs == ["p3"])
        #expect(shown?.change.isFullReload == false)
        #expect(try revisionOnDisk("p3", key: "profile") == 7)
        let snapshots = await recorder.snapshots(settlingOn: profileFeed)
        #expect(!snapshots.contains { $0.change.isFullReload })
    }

    @Test func aLocalUpdateReachesEveryFeedHoldingTheItemAndASecondStoreOnTheFile() async throws {
        let server = ModelServer(.posts("p", 5), pageSize: 10)
        let app = try test.store()
        let home = try feed(server.sharedSource, key: "home", store: app)
        let mentions = try feed(server.sharedSource, key: "mentions", store: app)
        let search = try feed(server.sharedSource, key: "search", store: app)
        for feed in [home, mentions, search] { await feed.refresh() }
        let widgetStore = try FeedStore(path: test.path, readOnly: true)
        let widget = try feed(server.sharedSource, key: "search", store: widgetStore)

        try await home.update(SharedPost(id: "p2", revision: 1))

        for other in [mentions, search, widget] {
            let shown = await other.firstSnapshot { $0.rows[2]?.revision == 1 }
            #expect(shown?.change.reloadedRows == [IndexPath(indexes: [0, 2])])
        }
        for key in ["home", "mentions", "search"] { #expect(try revisionOnDisk("p2", key: key) == 1) }
    }

    @Test func aNextPageCarriesItsCopiesToTheFeedsThatHoldThem() async throws {
        let home = ModelServer(.posts("p", 25), pageSize: 10)
        let store = try test.store()
        let homeFeed = try feed(home.sharedSource, key: "home", store: store)
        let starred = try feed(
            ModelServer([Post(id: "p15"), Post(id: "p22")], pageSize: 10).sharedSource, key: "starred", store: store)
        await homeFeed.refresh()
        await starred.refresh()
        home.items[15].revision = 3
        home.items[22].revision = 4
        await homeFeed.loadNextPage()
        await homeFeed.loadNextPage()
        let shown = await starred.firstSnapshot { $0.rows[0]?.revision == 3 && $0.rows[1]?.revision == 4 }
        #expect(shown != nil)
    }

    /// Two refreshed feeds, "home" and "profile", over one server's list of shared posts.
    func homeAndProfile(_ server: ModelServer) async throws -> (Feed<SharedPost>, Feed<SharedPost>) {
        let store = try test.store()
        let home = try feed(server.sharedSource, key: "home", store: store)
        let profile = try feed(server.sharedSource, key: "profile", store: store)
        await home.refresh()
        await profile.refresh()
        return (home, profile)
    }

    struct Refused: Error {}

    @Test func aPendingEditInAnotherFeedStaysOnTopAndItsRollbackRestoresTheNewerCopy() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let (home, profile) = try await homeAndProfile(server)
        await #expect(throws: Refused.self) {
            try await profile.edit(id: "p1", { $0.revision = 100 }) { _ in
                server.items[1].revision = 5
                await home.refresh()  // a newer server copy arrives in the other feed meanwhile
                #expect(await home.snapshot.rows[1]?.revision == 100, "the other feed's pending edit shows")
                #expect(await profile.snapshot.rows[1]?.revision == 100, "the edit stays on top")
                #expect(try revisionOnDisk("p1", key: "profile") == 100)
                throw Refused()
            }
        }
        #expect(await profile.snapshot.rows[1]?.revision == 5, "rolled back to the newer copy, not the old one")
        #expect(try revisionOnDisk("p1", key: "profile") == 5)
        #expect(try revisionOnDisk("p1", key: "home") == 5)
    }

    @Test func aRolledBackRemovalPutsBackTheCopyWrittenWhileItWasPending() async throws {
        let (home, profile) = try await homeAndProfile(ModelServer(.posts("p", 4), pageSize: 10))
        await #expect(throws: Refused.self) {
            try await profile.remove(id: "p1") { _ in
                try await home.update(SharedPost(id: "p1", revision: 5))  // the profile has no row to take it
                throw Refused()
            }
        }
        #expect(await profile.snapshot.rows[1] == SharedPost(id: "p1", revision: 5), "not the copy from before")
        #expect(try revisionOnDisk("p1", key: "profile") == 5)
    }

    @Test func aRolledBackRemovalDoesNotBringBackAnItemTheStoreRemoved() async throws {
        let server = ModelServer(.posts("p", 4), pageSize: 10)
        let store = try test.store()
        let home = try feed(server.sharedSource, key: "home", store: store)
        let profile = try feed(server.sharedSource, key: "profile", store: store)
        await home.refresh()
        await profile.refresh()
        await #expect(throws: Refused.self) {
            try await profile.remove(id: "p1") { _ in
                #expect(try store.remove(id: "p1", of: SharedPost.self) == 1)
                throw Refused()
            }
        }
        #expect(try test.idsOnDisk(key: "profile") == ["p0", "p2", "p3"])
        #expect(try test.idsOnDisk(key: "home") == ["p0", "p2", "p3"])
    }

    @Test func anOptimisticEditShowsInEveryFeedUntilItSettlesAndItsRollbackToo() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        let (home, profile) = try await homeAndProfile(server)
        await #expect(throws: Refused.self) {
            try await home.edit(id: "p0", { $0.revision = 9 }) { _ in
                #expect(await profile.firstSnapshot { $0.rows[0]?.revision == 9 } != nil)
                await profile.refresh()  // the server's copy does not undo the edit in the other feed
                #expect(await profile.snapshot.rows[0]?.revision == 9)
                #expect(try revisionOnDisk("p0", key: "profile") == 9)
                throw Refused()
            }
        }
        let rolledBack = await profile.firstSnapshot { $0.rows[0]?.revision == 0 }
        #expect(rolledBack?.change.reloadedRows == [IndexPath(indexes: [0, 0])])
        #expect(try revisionOnDisk("p0", key: "profile") == 0)
        #expect(try revisionOnDisk("p0", key: "home") == 0)
        try await home.edit(id: "p1", { $0.revision = 4 }) { _ in }
        #expect(await profile.firstSnapshot { $0.rows[1]?.revision == 4 } != nil, "confirmed: stays shown")
        await profile.refresh()
        #expect(await profile.snapshot.rows[1]?.revision == 0, "then the next server copy wins")
        #expect(try revisionOnDisk("p1", key: "home") == 0)
    }

    @Test func removingAnItemFromTheStoreRemovesItFromEveryFeedAtItsOwnRow() async throws {
        let home = ModelServer(.posts("p", 5), pageSize: 10)
        let store = try test.store()
        let homeFeed = try feed(home.sharedSource, key: "home", store: store)
        let profile = try feed(
            ModelServer([Post(id: "x"), Post(id: "p4")], pageSize: 10).sharedSource, key: "profile", store: store)
        let users = try feed(home.userSource, key: "users", store: store)
        await homeFeed.refresh()
        await profile.refresh()
        await users.refresh()

        #expect(try store.remove(id: "p4", of: SharedPost.self) == 2)

        let homeShown = await homeFeed.firstSnapshot { !$0.ids.contains("p4") }
        #expect(homeShown?.change.deletedRows == [IndexPath(indexes: [0, 4])])
        let profileShown = await profile.firstSnapshot { $0.ids == ["x"] }
        #expect(profileShown?.change.deletedRows == [IndexPath(indexes: [0, 1])])
        #expect(try test.idsOnDisk(key: "users").contains("p4"), "a user with the same id is another item")
        #expect(try store.remove(id: "p4", of: SharedPost.self) == 0)
        #expect(try store.remove(id: "p0", of: Post.self) == 0, "a type that does not share removes nothing here")
    }

    @Test func feedsOfATypeThatDoesNotShareAndOfAnotherNameKeepTheirOwnCopies() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        let store = try test.store()
        let posts = try feed(server.sharedSource, key: "posts", store: store)
        let users = try feed(server.userSource, key: "users", store: store)
        let plain = try feed(server.source, key: "plain", store: store)
        let plainToo = try feed(server.source, key: "plainToo", store: store)
        for feed in [posts] { await feed.refresh() }
        await users.refresh()
        await plain.refresh()
        await plainToo.refresh()
        try await posts.update(SharedPost(id: "p1", revision: 2))
        try await plain.update(Post(id: "p1", revision: 3))
        #expect(try test.postsOnDisk(key: "users")[1].revision == 0)
        #expect(try test.postsOnDisk(key: "plainToo")[1].revision == 0)
        #expect(try revisionOnDisk("p1", key: "posts") == 2)
    }

    @Test func aFeedFromBeforeSharingJoinsWhenItOpensAsASharedType() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        // The app's model did not share: its rows were the feed's own.
        let before = try test.feed(server.source, key: "home")
        await before.refresh()
        let store = try test.store()
        let home = try feed(server.sharedSource, key: "home", store: store)
        let profile = try feed(server.sharedSource, key: "profile", store: store)
        await profile.refresh()
        try await profile.update(SharedPost(id: "p2", revision: 6))
        #expect(try revisionOnDisk("p2", key: "home") == 6)
        let shown = await home.firstSnapshot { $0.rows[2]?.revision == 6 }
        #expect(shown != nil)
    }

    @Test func rowsASeedWritesIntoASharedFeedTakeTheCopiesOtherFeedsWrite() async throws {
        let server = ModelServer(.posts("p", 3), pageSize: 10)
        let (home, _) = try await homeAndProfile(server)
        // pagedb seeds the profile, which the app opened already: a write outside the engine's.
        let item = FixtureItem(id: "p7", section: nil, json: Data(#"{"id":"p7","revision":0}"#.utf8))
        _ = try DatabaseQueue(path: test.path).write { store in
            try store.seed([FixturePage(items: [item], olderCursor: nil, newerCursor: nil)], into: "profile")
        }
        try await home.insert(SharedPost(id: "p7", revision: 5), at: 0)
        #expect(try revisionOnDisk("p7", key: "profile") == 5)
    }
}
