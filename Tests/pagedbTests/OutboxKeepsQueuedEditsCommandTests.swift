import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// `pagedb` never loses a queued edit without being asked: `outbox` names the queued rows it cannot
/// read, `delete` keeps a feed with queued edits unless told to drop them, and the edits it drops
/// are kept in the outbox's history.
@Suite(.limit(minutes: 3)) struct OutboxKeepsQueuedEditsCommandTests {
    @Test func outboxNamesAQueuedRowItCannotRead() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await OutboxCommandTests.cacheWithAnUnreadableQueuedRow(in: scratch)
        let table = try await PagedDBBinary.run(["outbox", "--db", db])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("1 queued edit."), "the readable one: \(table.stdout)")
        #expect(table.stdout.contains("1 queued row cannot be read"))
        #expect(table.stdout.contains("item p1, step 0") && table.stdout.contains("not-a-uuid"), "\(table.stdout)")
        let verify = try await PagedDBBinary.run(["verify", "--db", db])
        #expect(verify.status == 1)
        #expect(verify.stdout.contains("idempotency key"), "\(verify.stdout)")
    }

    @Test func deleteKeepsAFeedWithQueuedEditsUnlessToldToDropThem() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, key) = try await OutboxCommandTests.cacheWithQueuedEdits(in: scratch)
        let refused = try await PagedDBBinary.run(["delete", "home", "--db", db])
        #expect(refused.status == 7)
        #expect(refused.stderr.contains("2 queued edits"), "\(refused.stderr)")
        #expect(try await PagedDBBinary.run(["outbox", "--db", db]).stdout.contains("2 queued edits."))

        let deleted = try await PagedDBBinary.run(["delete", "home", "--db", db, "--drop-queued-edits"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout.contains("2 queued edits dropped unsent"))
        let history = try await PagedDBBinary.run(["outbox", "--db", db, "--dropped", "--json"])
        let dropped = try #require(try PagedDBBinary.json(history) as? [[String: Any]])
        #expect(dropped.count == 2)
        #expect(dropped.contains { $0["idempotency_key"] as? String == key?.uuidString })
        #expect(dropped.allSatisfy { ($0["reason"] as? String)?.contains("pagedb delete") == true })
        #expect(
            try await PagedDBBinary.run(["outbox", "--db", db, "--dropped"]).stdout.contains("2 edits dropped unsent."))
    }

    /// A next page written by another process lists the rows around the app's queued removal and
    /// not its item: the removal stays queued, and the app sends it.
    @Test func aNextPageAppliedByAnotherProcessKeepsTheAppsQueuedRemoval() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("cache.sqlite")
        let source = ScriptedSource<MultiProcessTests.Revised> { request in
            guard request == .first else { return Page(items: [], olderCursor: nil) }
            return Page(items: (0..<5).map { MultiProcessTests.Revised(id: "p\($0)", revision: 0) }, olderCursor: "c1")
        }
        let app = try FeedStore(path: db)
        defer { app.close() }
        let feed = try app.feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        let key = try await feed.enqueue("hide", removing: "p3", argument: OutboxCommandTests.Like(on: false))
        let page = try scratch.file(
            "page.json", #"{"items":[{"id":"p2","revision":0},{"id":"p4","revision":0},{"id":"p5","revision":0}]}"#)
        let applied = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", page, "--as", "next"])
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(await app.outbox.status.edits.map(\.idempotencyKey) == [key].compactMap { $0 })

        let sent = Locked<[UUID]>([])
        await app.outbox.register("hide", as: OutboxCommandTests.Like.self) { edit in
            sent.append(edit.idempotencyKey)
            return .confirmed
        }
        for await status in await app.outbox.states where status.count == 0 { break }
        #expect(sent.value == [key].compactMap { $0 })
        let history = try await PagedDBBinary.run(["outbox", "--db", db, "--dropped"])
        #expect(history.stdout.contains("No queued edits were dropped"), "\(history.stdout)")
    }
}

/// The outbox's state is part of the file: what another process writes of the queued edits reaches
/// every store's `states`, as its lists follow its rows.
@Suite(.limit(minutes: 3)) struct OutboxStatesFollowOtherProcessesTests {
    @Test func aStoresStatesFollowQueuedEditsAnotherProcessDrops() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let (db, _) = try await OutboxCommandTests.cacheWithQueuedEdits(in: scratch)
        let widget = try FeedStore(path: db, readOnly: true)
        var states = await widget.outbox.states.makeAsyncIterator()
        #expect(await states.next()?.count == 2)
        let deleted = try await PagedDBBinary.run(["delete", "home", "--db", db, "--drop-queued-edits"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        var cleared = false
        while let status = await states.next() {
            if status.count == 0 {
                cleared = true
                break
            }
        }
        #expect(cleared)
    }
}
