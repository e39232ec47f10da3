extension ForeignWriter {
    /// Makes a cache file's full-text table again as an earlier PagedStore made it, without the index
    /// of three-letter prefixes, with the same documents: a file `pagedb reindex` has not upgraded.
    public static let searchIndexWithoutPrefixesSQL = """
        CREATE TABLE saved AS SELECT rowid AS doc, body FROM item_search;
        DROP TABLE item_search;
        CREATE VIRTUAL TABLE item_search USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
        INSERT INTO item_search (rowid, body) SELECT doc, body FROM saved;
        DROP TABLE saved;
        """
}
