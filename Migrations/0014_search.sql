-- Search: the items of feeds whose type declares searchable fields (FeedItem.searchableFields) are
-- indexed with FTS5, in the transaction that writes them. A feed whose type declares nothing pays
-- nothing: its rows never reach the index, and a file where no type declares any has no index.
--
-- feed.search_fields   the declared fields as a JSON array of paths into the payload ("content",
--                      "account.display_name"), written when the feed opens; NULL: not searchable
-- feed.search_backlog  the position from which the feed's rows are still to be indexed (rows
--                      written before the type declared its fields, indexed in batches after the
--                      feed opens); NULL when every row is
--
-- The index's tables (search_doc, and the FTS5 table item_search) are made by the first feed whose
-- type declares fields (PageStore+Search.swift), not here: a file with them parses them on every
-- open, which cost a cold first screen 18 us (5%) in a file where nothing is searchable.
ALTER TABLE feed ADD COLUMN search_fields TEXT;
ALTER TABLE feed ADD COLUMN search_backlog INTEGER;
