-- The change record: what each write of a feed changed, so that every open list of the feed (in
-- this process, another store, another process) follows it with the exact change, even several
-- writes at once, instead of reloading the whole list.
--
-- feed_change: one per committed write of the engine, in the write's own transaction.
--   seq          the store-wide sequence: every write of any feed takes the next number (a
--                number is taken again only after the newest rows were deleted with their feed)
--   feed_id      the feed written (no foreign key: deleting a feed deletes its rows itself)
--   from_count, to_count   feed.change_count before and after the write: a list that holds
--                from_count takes the change and then holds to_count
--   from_rows, to_rows     feed.row_count before and after the write
--   change       the rows deleted, inserted, reloaded and moved, encoded compactly (see
--                RowChange+Encoding.swift)
-- The record is bounded: the oldest rows are deleted once it holds more than its limit, and a list
-- that missed them takes its feed's rows whole. It has no index but its rowid: a commit then adds
-- one row to one page (the file's log grows by that page only), and a list that follows scans at
-- most the limit's rows, which are a few bytes each.
CREATE TABLE feed_change (
    seq INTEGER PRIMARY KEY,
    feed_id INTEGER NOT NULL,
    from_count INTEGER NOT NULL,
    to_count INTEGER NOT NULL,
    from_rows INTEGER NOT NULL,
    to_rows INTEGER NOT NULL,
    change BLOB NOT NULL
) STRICT;
