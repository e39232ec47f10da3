@testable import PagedStore

extension FeedStore {
    /// Makes the file's full-text table again as a version without the index of prefixes made it,
    /// with the same documents: a file that `pagedb reindex` has not upgraded yet.
    func makeSearchIndexWithoutPrefixes() throws {
        _ = try queue.write { file in
            try file.connection.execute(
                """
                CREATE TABLE saved AS SELECT rowid AS doc, body FROM item_search;
                DROP TABLE item_search;
                CREATE VIRTUAL TABLE item_search USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
                INSERT INTO item_search (rowid, body) SELECT doc, body FROM saved;
                DROP TABLE saved;
                """)
        }
    }

    /// How the file creates its full-text table.
    func searchIndexSchema() throws -> String? {
        try queue.read { file in
            try file.connection.rows("SELECT sql FROM sqlite_schema WHERE name = 'item_search'") { $0.string(0) }
        }.first ?? nil
    }
}
