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
