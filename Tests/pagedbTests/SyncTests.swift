import Foundation
import TestSupport
import Testing

/// `pagedb sync` against a real server on loopback.
@Suite struct SyncTests {
    @Test func syncFetchesPagesThenRefreshes() throws {
        let server = try LoopbackServer()
        let scratch = try Scratch()
        let db = scratch.path("sync.sqlite")
        let arguments = [
            "sync", "home", "--db", db, "--url", server.url("body").absoluteString, "--items-path", "data.items",
            "--next-path", "meta.next_cursor", "--pages", "2",
        ]
        let first = try PagedDBBinary.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Fetched 2 pages into home."))
        #expect(first.stdout.contains("20 rows"))
        let again = try PagedDBBinary.run(arguments)
        #expect(again.status == 0)
        #expect(again.stdout.contains("Refreshed home:"))
        #expect(try PagedDBBinary.run(["verify", "--db", db]).status == 0)

        let link = try PagedDBBinary.run([
            "sync", "t", "--db", db, "--url", server.url("link").absoluteString, "--link-header", "--pages", "3",
        ])
        #expect(link.stdout.contains("25 rows"), "\(link.stdout)\(link.stderr)")

        let down = try PagedDBBinary.run(["sync", "x", "--db", db, "--url", server.url("nothing-here").absoluteString])
        #expect(down.status == 69)
        #expect(down.stderr.contains("HTTP 404"))
    }
}
