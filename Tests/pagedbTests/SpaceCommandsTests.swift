import Foundation
import TestSupport
import Testing

@testable import PagedStore

/// `stats` and `vacuum`: each feed's size and last open, and shrinking a file on demand.
@Suite(.limit(minutes: 3), .plainRunOnly) struct SpaceCommandsTests {
    let scratch: TemporaryDirectory
    let db: String

    init() async throws {
        scratch = try TemporaryDirectory(prefix: "pagedbTests")
        db = scratch.path("cache.sqlite")
        for feed in ["a", "b"] {
            _ = try await PagedDBBinary.run(["seed", feed, "--db", db, "--generate", "2000", "--seed", "1"])
        }
    }

    func fileSize() throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: db)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    @Test func statsShowsEachFeedsSizeRowsAndLastOpenAndTheFreePages() async throws {
        let result = try await PagedDBBinary.run(["stats", "--db", db, "--json"])
        let stats = try #require(try PagedDBBinary.json(result) as? [String: Any])
        let feeds = try #require(stats["feeds"] as? [[String: Any]])
        #expect(feeds.map { $0["key"] as? String } == ["a", "b"])
        #expect(feeds.allSatisfy { $0["rows"] as? Int == 2000 && ($0["bytes"] as? Int ?? 0) > 100_000 })
        #expect(feeds.allSatisfy { $0["last_opened"] is NSNull }, "pagedb seed does not open a feed")
        #expect(stats["free_pages"] as? Int == 0)
        #expect(stats["incremental_vacuum"] as? Bool == false, "only a store with a budget asks for it")
        let table = try await PagedDBBinary.run(["stats", "--db", db])
        #expect(table.stdout.contains("LAST OPENED"))
        #expect(table.stdout.contains("auto-vacuum off"))
    }

    @Test func vacuumGivesTheFreePagesOfADeletedFeedBack() async throws {
        _ = try await PagedDBBinary.run(["delete", "b", "--db", db])
        let before = try fileSize()
        let result = try await PagedDBBinary.run(["vacuum", "--db", db])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Shrank"))
        let after = try fileSize()
        #expect(after < before * 2 / 3, "\(before) → \(after) bytes")
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }

    @Test func vacuumConvertsAFileCreatedWithoutAutoVacuumThenGivesPagesBackIncrementally() async throws {
        #expect(try DatabaseQueue(path: db).read { try $0.fileSpace().isIncremental } == false)
        let result = try await PagedDBBinary.run(["vacuum", "--db", db])
        #expect(result.stdout.contains("now uses incremental auto-vacuum"))
        #expect(try DatabaseQueue(path: db).read { try $0.fileSpace().isIncremental })
        _ = try await PagedDBBinary.run(["delete", "a", "--db", db])
        let again = try await PagedDBBinary.run(["vacuum", "--db", db])
        #expect(!again.stdout.contains("now uses"), "converted once")
        #expect(try DatabaseQueue(path: db).read { try $0.fileSpace().freePages } == 0)
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }

    @Test func vacuumOfAMissingFileNamesThePath() async throws {
        let result = try await PagedDBBinary.run(["vacuum", "--db", scratch.path("missing.sqlite")])
        #expect(result.status != 0)
        #expect(result.stderr.contains("missing.sqlite"))
    }
}
