import PagedStore
import PagedStoreTesting

/// A post with two things a reader changes and a revision the server changes: the test item of
/// edits that touch different fields of one item.
struct Note: FeedItem, Codable, Equatable {
    let id: String
    var liked = false
    var starred = false
    var revision = 0
}

/// The argument of the tests' likes and stars.
struct Liked: Codable, Sendable {
    var liked: Bool
}

extension ModelServer {
    /// This server's posts as notes, `p1` as `n1`.
    var noteSource: ScriptedSource<Note> {
        source { Note(id: "n" + $0.id.dropFirst(), revision: $0.revision) }
    }
}

extension FeedTestCase {
    /// A feed "notes" of `server`'s notes, in `store` or a new one (a relaunch opens another),
    /// refreshed unless told not to.
    func openNotes(
        _ server: ModelServer, store: FeedStore? = nil, refresh: Bool = true
    ) async throws -> (FeedStore, Feed<Note>) {
        let store = try store ?? self.store()
        let feed = try store.feed("notes", source: server.noteSource, policy: FeedPolicy(refreshOnOpen: .never))
        if refresh { await feed.refresh() }
        return (store, feed)
    }
}

/// A note shared under one name across feeds (``FeedItem/sharedItemType``).
struct SharedNote: FeedItem, Codable, Equatable {
    static let sharedItemType: String? = "note"
    let id: String
    var liked = false
    var starred = false
    var revision = 0
}

extension ModelServer {
    /// This server's posts as shared notes, `p1` as `n1`.
    var sharedNoteSource: ScriptedSource<SharedNote> {
        source { SharedNote(id: "n" + $0.id.dropFirst(), revision: $0.revision) }
    }
}

extension FeedTestCase {
    /// The feeds "home" and "profile" of `server`'s shared notes in `store` or a new one, both
    /// refreshed: two lists holding one item each.
    func openSharedNotes(
        _ server: ModelServer, store: FeedStore? = nil
    ) async throws -> (FeedStore, home: Feed<SharedNote>, profile: Feed<SharedNote>) {
        let store = try store ?? self.store()
        let policy = FeedPolicy(refreshOnOpen: .never)
        let home = try store.feed("home", source: server.sharedNoteSource, policy: policy)
        let profile = try store.feed("profile", source: server.sharedNoteSource, policy: policy)
        await home.refresh()
        await profile.refresh()
        return (store, home, profile)
    }

    /// The feed "home" of `server`'s posts in a store of its own, refreshed, with the edits `queue`
    /// makes; the store is then closed, as an app killed with edits waiting.
    func queueBeforeARelaunch(_ server: ModelServer, _ queue: (Feed<Post>) async throws -> Void) async throws {
        let feed = try self.feed(server.source, store: try store())
        await feed.refresh()
        try await queue(feed)
    }

    /// The feed "home" of `server`'s posts in a new store, refreshed.
    func openPosts(_ server: ModelServer) async throws -> (FeedStore, Feed<Post>) {
        let store = try store()
        let feed = try self.feed(server.source, store: store)
        await feed.refresh()
        return (store, feed)
    }
}
