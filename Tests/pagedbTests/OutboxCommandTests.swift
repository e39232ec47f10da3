import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// `pagedb outbox`: the edits a cache holds for its server, read without changing the file.
@Suite(.limit(minutes: 3)) struct OutboxCommandTests {
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

    /// ``cacheWithQueuedEdits(in:)`` with the queued row of `p1` edited by hand as `set` says (an
    /// idempotency key that is not a UUID, by default), so that no edit can be read from it.
    static func cacheWithAnUnreadableQueuedRow(
        in scratch: TemporaryDirectory, set: String = "idempotency_key = 'not-a-uuid'"
    ) async throws -> String {
        let (db, _) = try await cacheWithQueuedEdits(in: scratch)
        let connection = try Connection(path: db, mode: .readWrite)
        try connection.execute("UPDATE pending_edit SET \(set) WHERE item_id = 'p1'")
        return db
    }

    @Test func outboxListsEachQueuedEditWithItsKindKeyAndAttempts() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, key) = try await Self.cacheWithQueuedEdits(in: scratch)
        let before = scratch.fingerprint(db)
        let table = try await PagedDBBinary.run(["outbox", "--db", db])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("like") && table.stdout.contains("hide"))
        #expect(table.stdout.contains(try #require(key).uuidString))
        #expect(table.stdout.contains("2 queued edits."))
        let json = try await PagedDBBinary.run(["outbox", "--db", db, "--json"])
        let edits = try #require(try PagedDBBinary.json(json) as? [[String: Any]])
        #expect(edits.map { $0["kind"] as? String } == ["like", "hide"])
        #expect(edits.map { $0["change"] as? String } == ["update", "remove"])
        #expect(edits.first?["idempotency_key"] as? String == key?.uuidString)
        #expect(edits.first?["attempts"] as? Int == 0)
        #expect((edits.first?["argument"] as? [String: Any])?["on"] as? Bool == true)
        #expect(scratch.fingerprint(db) == before, "outbox changed the file")
    }

    @Test func anItemsLaterEditIsListedAfterTheOneItWaitsFor() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, key) = try await Self.cacheWithQueuedEdits(in: scratch)
        let store = try FeedStore(path: db)
        let feed = try store.feed(
            "home", source: ScriptedSource<MultiProcessTests.Revised>(), policy: FeedPolicy(refreshOnOpen: .never))
        let later = try #require(
            try await feed.enqueue("like", id: "p1", argument: Like(on: false)) { $0.revision -= 1 })
        store.close()

        let table = try await PagedDBBinary.run(["outbox", "--db", db])
        #expect(table.stdout.contains("3 queued edits."))
        #expect(Self.line(of: later.uuidString, in: table.stdout)?.contains("after the edit before it") == true)
        let edits = try #require(
            try PagedDBBinary.json(try await PagedDBBinary.run(["outbox", "--db", db, "--json"])) as? [[String: Any]])
        // Items in the order of their first edits, each item's edits together, in order.
        #expect(edits.map { $0["idempotency_key"] as? String }[1] == later.uuidString)
        #expect(edits.map { $0["waits_for"] as? String } == [nil, key?.uuidString, nil])
        let shown = try await PagedDBBinary.run(["show", "--db", db, "home"])
        #expect(shown.stdout.contains("next try after the edit before it"))
        let detail = try #require(
            try PagedDBBinary.json(try await PagedDBBinary.run(["show", "--db", db, "home", "--json"]))
                as? [String: Any])
        let pending = try #require(detail["pending_edits"] as? [[String: Any]])
        #expect(pending.map { $0["waits_for"] as? String } == [nil, nil, key?.uuidString])
    }

    @Test func outboxAndShowSayWhenEachQueuedEditIsNextTried() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, key) = try await Self.cacheWithQueuedEdits(in: scratch)
        let fresh = try await PagedDBBinary.run(["outbox", "--db", db])
        #expect(fresh.stdout.contains("NEXT TRY"))
        #expect(Self.line(of: "like", in: fresh.stdout)?.contains("at once") == true, "no send failed yet")
        let freshJSON = try #require(
            try PagedDBBinary.json(try await PagedDBBinary.run(["outbox", "--db", db, "--json"])) as? [[String: Any]])
        #expect(freshJSON.allSatisfy { $0["next_attempt_at"] is NSNull })

        // What failed sends keep: the like two and a half hours ahead (a server's Retry-After), the
        // removal's time passed (its store quit before it). Whole seconds, as JSON prints them.
        let now = Date().timeIntervalSince1970.rounded(.down)
        let (ahead, passed) = (Date(timeIntervalSince1970: now + 9000), Date(timeIntervalSince1970: now - 60))
        let queue = try DatabaseQueue(path: db)
        try queue.write { store in
            let feed = try #require(try store.feed(key: "home"))
            let edits = try store.pendingEdits(of: feed)
            for (itemID, time) in [("p1", ahead), ("p2", passed)] {
                let edit = try #require(edits.first { $0.itemID == itemID }?.queued)
                // A store sends under its lease, and counts its failure under it.
                try store.setSendLease(
                    of: itemID, key: edit.idempotencyKey, holder: "1:a store", until: Date() + 60, in: feed)
                _ = try store.recordFailedSend(
                    of: itemID, key: edit.idempotencyKey, by: "1:a store", error: "HTTP 503", nextAttemptAt: time,
                    in: feed)
            }
        }
        queue.close()

        let table = try await PagedDBBinary.run(["outbox", "--db", db])
        #expect(Self.line(of: "like", in: table.stdout)?.contains("in 2 h") == true, "\(table.stdout)")
        #expect(Self.line(of: "hide", in: table.stdout)?.contains("due") == true, "\(table.stdout)")
        let json = try #require(
            try PagedDBBinary.json(try await PagedDBBinary.run(["outbox", "--db", db, "--json"])) as? [[String: Any]])
        let iso = ISO8601DateFormatter()
        #expect(json.map { $0["next_attempt_at"] as? String } == [iso.string(from: ahead), iso.string(from: passed)])
        #expect(json.first?["idempotency_key"] as? String == key?.uuidString)

        let show = try await PagedDBBinary.run(["show", "home", "--db", db])
        #expect(show.stdout.contains("1 failed sends, next try in 2 h"), "\(show.stdout)")
        #expect(show.stdout.contains("1 failed sends, next try due"), "\(show.stdout)")
        let detail =
            try PagedDBBinary.json(try await PagedDBBinary.run(["show", "home", "--db", db, "--json"]))
            as? [String: Any]
        let pending = try #require(detail?["pending_edits"] as? [[String: Any]])
        #expect(
            pending.map { $0["next_attempt_at"] as? String } == [iso.string(from: ahead), iso.string(from: passed)])
    }

    @Test func aFeedOpenInAnotherProcessFollowsTheRollbacksAnOutboxWritesWithoutTheFeed() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, _) = try await Self.cacheWithQueuedEdits(in: scratch)
        let watch = try RunningPagedDB(["watch", "home", "--db", db, "--json"])
        var lines = watch.lines.makeAsyncIterator()
        let opened = try #require(await lines.next())
        #expect(opened.contains(#""rows":2"#) || opened.contains(#""rows" : 2"#), "p2's removal is shown: \(opened)")

        // The relaunched app registers its handlers and opens no feed; the server refuses both edits.
        let store = try FeedStore(path: db)
        await store.outbox.register("like", as: Like.self) { _ in .rejected(reason: "HTTP 409") }
        await store.outbox.register("hide", as: Like.self) { _ in .rejected(reason: "HTTP 403") }
        // The two rejections settle in either order, together or apart: read until both show.
        var changes: [[String: Any]] = []
        while changes.last?["rows"] as? Int != 3 || !changes.contains(where: { $0["reloaded"] as? [[Int]] != [] }) {
            let line = try #require(await lines.next(), "watch ended before it showed both rollbacks")
            changes.append(try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
        }
        #expect(changes.allSatisfy { $0["full_reload"] as? Bool == false }, "every rollback followed exactly")
        let inserted = changes.flatMap { $0["inserted"] as? [[Int]] ?? [] }
        #expect(inserted == [[0, 2]], "p2 back between p1 and the end")
        #expect(changes.flatMap { $0["reloaded"] as? [[Int]] ?? [] } == [[0, 1]], "p1 back to the server's value")
        await #expect(watch.interrupt().status == 0)
        for await status in await store.outbox.states where status.count == 0 { break }
        store.close()
        let items = try await PagedDBBinary.run(["items", "home", "--db", db, "--json"])
        let rows = try #require(try PagedDBBinary.json(items) as? [[String: Any]])
        #expect(rows.map { $0["id"] as? String } == ["p0", "p1", "p2"])
        #expect(rows.map { ($0["payload"] as? [String: Any])?["revision"] as? Int } == [0, 0, 0])
    }

    /// The line of `text` that names `word`.
    static func line(of word: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.contains(word) }.map(String.init)
    }

    @Test func aCacheWithoutQueuedEditsSaysSo() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let items = try scratch.file("items.json", #"[{"id":"a"}]"#)
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", items]).status == 0)
        let result = try await PagedDBBinary.run(["outbox", "--db", db])
        #expect(result.status == 0)
        #expect(result.stdout.contains("No queued edits in this cache."))
        #expect(try PagedDBBinary.json(try await PagedDBBinary.run(["outbox", "--db", db, "--json"])) as? [Any] != nil)
    }
}
