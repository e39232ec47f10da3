import TestSupport

@testable import PagedStore

extension FeedStore {
    /// Makes the file's full-text table again as a version without the index of prefixes made it,
    /// with the same documents: a file that `pagedb reindex` has not upgraded yet.
    func makeSearchIndexWithoutPrefixes() throws {
        _ = try queue.write { file in try file.connection.execute(ForeignWriter.searchIndexWithoutPrefixesSQL) }
    }

    /// How the file creates its full-text table.
    func searchIndexSchema() throws -> String? {
        try queue.read { file in
            try file.connection.rows("SELECT sql FROM sqlite_schema WHERE name = 'item_search'") { $0.string(0) }
        }.first ?? nil
    }
}
