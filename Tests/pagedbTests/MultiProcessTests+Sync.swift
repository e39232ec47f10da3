import Foundation
import TestSupport
import Testing

/// `pagedb sync` on a file another process holds: the same exit status as every other command.
extension MultiProcessTests {
    @Test func syncWhoseWriteFindsTheFileHeldExitsBusyLikeEveryCommand() async throws {
        let server = try LoopbackServer()
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = scratch.path("busy.sqlite")
        let arguments = [
            "sync", "home", "--db", db, "--url", server.url("gate").absoluteString, "--items-path", "data.items",
            "--next-path", "meta.next_cursor",
        ]
        // The feed exists, so opening it writes nothing: the refresh's own write is the one that waits.
        let seeded = try scratch.file("one.ndjson", #"{"id":"old"}"# + "\n")
        #expect(try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", seeded]).status == 0)
        let sync = Task.detached { try await PagedDBBinary.run(arguments) }
        try await server.control("gate/arrived", [:])
        // Longer than the 5 s busy timeout: the refresh's write gives up while the lock is held.
        let holder = try await startHolder(db: db, milliseconds: 30_000)
        defer {
            holder.terminate()
            holder.waitUntilExit()  // terminated: it ends at once
        }
        try await server.control("gate/open", [:])
        let busy = try await sync.value
        #expect(busy.status == 5, "\(busy.stderr)")
        let lines = busy.stderr.split(separator: "\n")
        #expect(lines.count == 1 && busy.stderr.hasPrefix("pagedb: error:"), "\(busy.stderr)")
    }
}
