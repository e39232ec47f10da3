import Foundation
import PagedStore
import PagedStoreTesting
import TestSupport
import Testing

/// No transaction is held across an `await`: an app suspended in the middle of a write operation
/// (its fetch or its server call outstanding) holds no lock on the file, so another process (an
/// extension, `pagedb`) writes at once, and iOS never finds the app suspended with a lock held
/// (0xdead10cc).
extension MultiProcessTests {
    /// Writes a refresh of `home` with `pagedb apply` while the caller's write operation is held, and
    /// checks that it succeeded: the caller's operation waits for the test, so a lock it held would
    /// end the other process with a busy error after that process's 5 s busy timeout. (Its status says
    /// it, not how long it ran, which a loaded machine's start of a process can make any length.)
    static func otherProcessWrites(_ db: String, in scratch: TemporaryDirectory) async throws {
        let page = try scratch.file(
            "other.json", #"{"items":[{"id":"x1"},{"id":"p1"}],"next_cursor":"c","previous_cursor":null}"#)
        let result = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", page, "--as", "refresh"])
        #expect(result.status == 0, "the other process found a lock held: \(result.stderr)")
    }

    @Test(.limit())
    func aRefreshWhoseFetchIsHeldKeepsNoOtherProcessWaiting() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("shared.sqlite")
        let source = ScriptedSource<Entry>()
        let store = try FeedStore(path: db)
        let feed = try store.feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))
        let refresh = Task { await feed.refresh() }
        let held = await source.nextFetch()
        try await Self.otherProcessWrites(db, in: scratch)
        held.respond(Page(items: [Entry(id: "p1"), Entry(id: "p2")], olderCursor: nil))
        await refresh.value
        #expect(await feed.snapshot.refresh == .idle, "the held refresh then commits")
        store.close()
    }

    @Test(.limit())
    func anOptimisticEditWhoseServerCallIsHeldKeepsNoOtherProcessWaiting() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("shared.sqlite")
        let store = try FeedStore(path: db)
        let feed = try store.feed(
            "home", source: ScriptedSource<Entry> { _ in Page(items: [Entry(id: "p1")], olderCursor: nil) },
            policy: FeedPolicy(refreshOnOpen: .never))
        await feed.refresh()
        let (calls, call) = AsyncStream.makeStream(of: Void.self)
        let (answers, answer) = AsyncStream.makeStream(of: Void.self)
        let edit = Task {
            try await feed.edit(id: "p1", { $0.edited = true }) { _ in
                call.yield()
                for await _ in answers { return }
            }
        }
        for await _ in calls { break }
        try await Self.otherProcessWrites(db, in: scratch)
        answer.yield()
        #expect(try await edit.value)
        store.close()
    }
}
