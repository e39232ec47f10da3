import Foundation
import PagedStore
import PagedStoreFixtures
import TestSupport
import Testing

/// `pagedb seed` (row by row and in bulk), `apply` and `trim` on a feed deep enough for page
/// groups keep every row index the count of the rows above it.
@Suite(.limit(minutes: 3), .plainRunOnly) struct PageGroupsUnderCommandsTests {
    let scratch: TemporaryDirectory
    init() throws { scratch = try TemporaryDirectory(prefix: "pagedbTests") }

    func expectTrueIndexes(_ db: String, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let problems = try DatabaseQueue(path: db).rowIndexProblems()
        #expect(problems.isEmpty, "\(context): \(problems)", sourceLocation: sourceLocation)
    }

    func makeGroups(_ db: String) throws {
        try DatabaseQueue(path: db).write { store in
            let feed = try #require(try store.feed(key: "home"))
            // A write asking an index deep down makes the groups.
            _ = try store.rowIndex(ofPosition: try #require(feed.bottomPosition), in: feed)
        }
    }

    func lines(_ prefix: String, _ count: Int) -> String {
        (0..<count).map { #"{"id":"\#(prefix)\#($0)"}"# }.joined(separator: "\n") + "\n"
    }

    /// A file whose feed "home" holds 600 rows in pages of two, with its page groups made.
    func seedDeepFeed() async throws -> String {
        let db = scratch.path("cache.sqlite")
        let first = try scratch.file("first.ndjson", lines("a", 600))
        let result = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", first, "--page-size", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        try makeGroups(db)
        return db
    }

    @Test func seedApplyAndTrimOnADeepFeedKeepTrueIndexes() async throws {
        let db = try await seedDeepFeed()
        var result: PagedDBBinary.Result
        let more = try scratch.file("more.ndjson", lines("b", 300))
        result = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", more, "--page-size", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        try expectTrueIndexes(db, "seed into a deep feed")
        let page = try scratch.file(
            "refresh.json", #"{"items":[{"id":"n1"},{"id":"n2"},{"id":"a0","x":1}],"previous_cursor":"n"}"#)
        result = try await PagedDBBinary.run(["apply", "home", "--db", db, "--page", page, "--as", "refresh"])
        #expect(result.status == 0, "\(result.stderr)")
        try expectTrueIndexes(db, "apply refresh")
        result = try await PagedDBBinary.run(["trim", "home", "--db", db, "--max-rows", "700"])
        #expect(result.status == 0, "\(result.stderr)")
        try expectTrueIndexes(db, "trim")
    }

    @Test func aBulkSeedIntoADeepFeedTrimmedEmptyKeepsTrueIndexes() async throws {
        let db = try await seedDeepFeed()
        var result: PagedDBBinary.Result
        result = try await PagedDBBinary.run(["trim", "home", "--db", db, "--max-rows", "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let big = try scratch.file("big.ndjson", lines("b", 60_000))
        result = try await PagedDBBinary.run(["seed", "home", "--db", db, "--file", big, "--page-size", "50"])
        #expect(result.status == 0, "\(result.stderr)")
        try expectTrueIndexes(db, "bulk seed after an empty trim")
    }
}
