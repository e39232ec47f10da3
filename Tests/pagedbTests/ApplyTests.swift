import Foundation
import TestSupport
import Testing

/// `pagedb apply`: the real engine on captured responses.
@Suite(.limit(minutes: 3), .plainRunOnly) struct ApplyTests {
    let scratch: TemporaryDirectory
    let db: String

    init() async throws {
        scratch = try TemporaryDirectory(prefix: "pagedbTests")
        db = scratch.path("cache.sqlite")
        let cached = try scratch.file(
            "cached.json", #"{"items":[{"id":"p1"},{"id":"p2"},{"id":"p3"}],"next_cursor":"c3","previous_cursor":"n1"}"#
        )
        let result = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", cached, "--as", "refresh"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    func apply(_ page: String, as kind: String, _ extra: [String] = []) async throws -> [String: Any] {
        let file = try scratch.file("page-\(UUID().uuidString).json", page)
        let result = try await PagedDBBinary.run(
            ["apply", "home", "--db", db, "--page", file, "--as", kind, "--json"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try PagedDBBinary.json(result) as? [String: Any])
    }

    @Test func anOverlappingRefreshInsertsAtTheTop() async throws {
        let change = try await apply(
            #"{"items":[{"id":"n1"},{"id":"n2"},{"id":"p1"},{"id":"p2","edited":true}],"next_cursor":"c2","previous_cursor":"n0"}"#,
            as: "refresh")
        #expect(change["inserted"] as? [[Int]] == [[0, 0], [0, 1]])
        #expect(change["reloaded"] as? [[Int]] == [[0, 1]])
        #expect(change["gap_created"] as? Bool == false)
        let cursors = change["cursors"] as? [String: Any]
        #expect(cursors?["newest_before"] as? String == "n1")
        #expect(cursors?["newest_after"] as? String == "n0")
        #expect(cursors?["oldest_after"] as? String == "c3")
        #expect(change["rows"] as? Int == 5)
    }

    @Test func aRefreshWithoutOverlapMakesAGapOrReplaces() async throws {
        let page = #"{"items":[{"id":"x1"},{"id":"x2"}],"next_cursor":"cx","previous_cursor":null}"#
        let dry = try await apply(page, as: "refresh", ["--gap-policy", "keepGap", "--dry-run"])
        #expect(dry["gap_created"] as? Bool == true)
        #expect(dry["inserted"] as? [[Int]] == [[0, 0], [0, 1]])
        #expect(dry["rows"] as? Int == 5)
        let replaced = try await apply(page, as: "refresh", ["--gap-policy", "replace"])
        #expect(replaced["full_reload"] as? Bool == true)
        #expect(replaced["rows"] as? Int == 2)
    }

    @Test func aDryRunChangesNothing() async throws {
        let before = scratch.fingerprint(db)
        _ = try await apply(#"{"items":[{"id":"z"}],"next_cursor":null}"#, as: "next", ["--dry-run"])
        #expect(scratch.fingerprint(db) == before)
    }

    @Test func aNextPageDropsDuplicates() async throws {
        let change = try await apply(#"{"items":[{"id":"p3"},{"id":"q1"},{"id":"q2"}],"next_cursor":null}"#, as: "next")
        #expect(change["inserted"] as? [[Int]] == [[0, 3], [0, 4]])
        #expect((change["state"] as? [String: Any])?["next_page"] as? String == "endReached")
    }
}
