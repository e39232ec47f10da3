import Foundation
import PagedStoreTesting
import TestSupport
import Testing

@testable import PagedStore

/// `pagedb search`, `reindex`, `verify` and `show` on a file whose feeds' type is searchable: the
/// binary reads the fields the file records, without the app's types.
@Suite(.limit(minutes: 3), .plainRunOnly) struct SearchCommandTests {
    struct Note: FeedItem, Codable {
        static let searchableFields = ["content"]
        let id: String
        var content: String
    }

    /// A file with a searchable feed `home` of three notes.
    static func cache(in scratch: TemporaryDirectory) async throws -> String {
        let db = scratch.path("cache.sqlite")
        let store = try FeedStore(path: db)
        let notes = [
            Note(id: "a", content: "<p>Un café à Paris</p>"), Note(id: "b", content: "Swift concurrency"),
            Note(id: "c", content: "rust"),
        ]
        let source = ScriptedSource<Note> { _ in Page(items: notes, olderCursor: nil) }
        await (try store.feed("home", source: source, policy: FeedPolicy(refreshOnOpen: .never))).refresh()
        store.close()
        return db
    }

    @Test func searchPrintsEachMatchWithItsFeedRowAndMatchedText() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await Self.cache(in: scratch)
        let text = try await PagedDBBinary.run(["search", "cafe", "--db", db])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("[café]"))
        let json = try #require(
            try PagedDBBinary.json(try await PagedDBBinary.run(["search", "swift conc", "--db", db, "--json"]))
                as? [[String: Any]])
        #expect(json.count == 1)
        #expect(json.first?["id"] as? String == "b")
        #expect(json.first?["row"] as? Int == 1)
        #expect(json.first?["matches"] as? [String] == ["Swift", "conc"], "a prefix highlights what was typed")
        #expect(try await PagedDBBinary.run(["search", "\"(NEAR", "--db", db]).stdout.contains("No match."))
    }

    @Test func showSaysTheFieldsTheDocumentsAndTheIndexSize() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await Self.cache(in: scratch)
        let text = try await PagedDBBinary.run(["show", "home", "--db", db])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("searchable: content (3 documents, the file's index "), "\(text.stdout)")
        let json = try #require(
            try PagedDBBinary.json(try await PagedDBBinary.run(["show", "home", "--db", db, "--json"]))
                as? [String: Any])
        let search = try #require(json["search"] as? [String: Any])
        #expect(search["fields"] as? [String] == ["content"])
        #expect(search["documents"] as? Int == 3)
        #expect(search["waiting_to_be_indexed"] as? Bool == false)
        #expect(search["indexes_prefixes"] as? Bool == true)
        #expect((search["index_bytes"] as? Int ?? 0) > 0)
        #expect(!text.stdout.contains("no index of prefixes"))
    }

    @Test func showSaysAnIndexWithoutPrefixesAndReindexAddsThem() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await Self.cache(in: scratch)
        try ForeignWriter.execute(ForeignWriter.searchIndexWithoutPrefixesSQL, on: db)
        let before = try await PagedDBBinary.run(["show", "home", "--db", db])
        #expect(before.stdout.contains("no index of prefixes: pagedb reindex adds it"), "\(before.stdout)")
        #expect(try await PagedDBBinary.run(["search", "swi", "--db", db]).stdout.contains("[Swi"))
        #expect(try await PagedDBBinary.run(["reindex", "--db", db]).status == 0)
        let after = try await PagedDBBinary.run(["show", "home", "--db", db])
        #expect(!after.stdout.contains("no index of prefixes"), "\(after.stdout)")
        #expect(try await PagedDBBinary.run(["search", "swi", "--db", db]).stdout.contains("[Swi"))
    }

    @Test func aPayloadEditedByHandIsReportedByVerifyAndRepairedByReindex() async throws {
        let scratch = try TemporaryDirectory(prefix: "pagedbTests")
        let db = try await Self.cache(in: scratch)
        // What sqlite3 by hand would do: the row's text changes, the index does not know.
        try Connection(path: db, mode: .readWrite).execute(
            #"UPDATE item SET payload = '{"id":"c","content":"kotlin"}' WHERE item_id = 'c'"#)
        #expect(try await PagedDBBinary.run(["search", "kotlin", "--db", db]).stdout.contains("No match."))
        let verified = try await PagedDBBinary.run(["verify", "--db", db])
        #expect(verified.status != 0)
        #expect(verified.stdout.contains("search") || verified.stderr.contains("search"), "\(verified.stdout)")
        let reindexed = try await PagedDBBinary.run(["reindex", "--db", db])
        #expect(reindexed.status == 0, "\(reindexed.stderr)")
        #expect(try await PagedDBBinary.run(["search", "kotlin", "--db", db]).stdout.contains("kotlin"))
        #expect(try await PagedDBBinary.run(["verify", "--db", db]).status == 0)
    }
}
