import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// `pagedb outbox`: the edits a cache holds for its server, read without changing the file.
@Suite struct OutboxCommandTests {
    struct Like: Codable, Sendable {
        var on: Bool
    }

    /// A cache whose feed holds `home`'s three posts and two edits queued for the server (no handler
    /// is registered, so they wait), and the key of the first.
    static func cacheWithQueuedEdits(in scratch: TemporaryDirectory) async throws -> (db: String, key: UUID?) {
        let db = scratch.path("cache.sqlite")
        let store = try FeedStore(path: db)
        let source = ScriptedSource<MultiProcessTests.Revised> { _ in
            Page(items: (0..<3).map { MultiProcessTests.Revised(id: "p\($0)", revision: 0) }, olderCursor: nil)
        }
        let feed = try store.feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        let key = try await feed.enqueue("like", id: "p1", argument: Like(on: true)) { $0.revision += 1 }
        _ = try await feed.enqueue("hide", removing: "p2", argument: Like(on: false))
        store.close()
        return (db, key)
    }

    @Test func outboxListsEachQueuedEditWithItsKindKeyAndAttempts() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, key) = try await Self.cacheWithQueuedEdits(in: scratch)
        let before = scratch.fingerprint(db)
        let table = try PagedDBBinary.run(["outbox", "--db", db])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("like") && table.stdout.contains("hide"))
        #expect(table.stdout.contains(try #require(key).uuidString))
        #expect(table.stdout.contains("2 queued edits."))
        let json = try PagedDBBinary.run(["outbox", "--db", db, "--json"])
        let edits = try #require(try PagedDBBinary.json(json) as? [[String: Any]])
        #expect(edits.map { $0["kind"] as? String } == ["like", "hide"])
        #expect(edits.map { $0["change"] as? String } == ["update", "remove"])
        #expect(edits.first?["idempotency_key"] as? String == key?.uuidString)
        #expect(edits.first?["attempts"] as? Int == 0)
        #expect((edits.first?["argument"] as? [String: Any])?["on"] as? Bool == true)
        #expect(scratch.fingerprint(db) == before, "outbox changed the file")
    }

    @Test func aCacheWithoutQueuedEditsSaysSo() throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let items = try scratch.file("items.json", #"[{"id":"a"}]"#)
        #expect(try PagedDBBinary.run(["seed", "home", "--db", db, "--file", items]).status == 0)
        let result = try PagedDBBinary.run(["outbox", "--db", db])
        #expect(result.status == 0)
        #expect(result.stdout.contains("No queued edits in this cache."))
        #expect(try PagedDBBinary.json(try PagedDBBinary.run(["outbox", "--db", db, "--json"])) as? [Any] != nil)
    }
}
