-- Search: the items of feeds whose type declares searchable fields (FeedItem.searchableFields) are
-- indexed with FTS5, in the transaction that writes them. A feed whose type declares nothing pays
-- nothing: its rows never reach the index.
--
-- feed.search_fields   the declared fields as a JSON array of paths into the payload ("content",
--                      "account.display_name"), written when the feed opens; NULL: not searchable
-- feed.search_backlog  the position from which the feed's rows are still to be indexed (rows
--                      written before the type declared its fields, indexed in batches after the
--                      feed opens); NULL when every row is
--
-- search_doc: one indexed document per item: a feed's own item once per feed (owner 'f' and the
-- feed's id), a shared item once whatever number of feeds hold it (owner 's' and its shared name).
-- Its INTEGER PRIMARY KEY is the FTS5 row's id: VACUUM keeps it, where it renumbers item's rowids.
--   doc       the document's id, the rowid of its row in item_search
--   owner     'f<feed id>' or 's<shared name>'
--   item_id   the item's id
--
-- item_search: the documents' text: the declared fields' strings, markup removed, words of scripts
-- written without spaces split into their characters (so that any two characters are found).
-- unicode61 with remove_diacritics 2 folds case and accents ("cafe" finds "Café"). No prefix index:
-- measured, it made every write of a searchable row 15% slower and its index a sixth larger, while
-- three-letter prefixes as typed were as fast without it.
ALTER TABLE feed ADD COLUMN search_fields TEXT;
ALTER TABLE feed ADD COLUMN search_backlog INTEGER;

CREATE TABLE search_doc (
    doc INTEGER PRIMARY KEY,
    owner TEXT NOT NULL,
    item_id TEXT NOT NULL,
    UNIQUE (owner, item_id)
) STRICT;

CREATE VIRTUAL TABLE item_search USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
