-- The store's budget: when each feed was last opened, so that a store over its size evicts the
-- feeds opened longest ago first, and drops feeds not opened for longer than its maximum age.
--
-- feed_use: one per feed that was opened since this migration (a feed without one was last opened
-- before it, and counts as opened longest ago).
--   opened_at   ms since 1970, written when a feed opens (at most once a minute per feed)
-- A table of its own rather than a column of feed: a feed's row is what every open list compares to
-- tell that another writer wrote the feed, and opening a feed is not a write of its rows.
--
-- A file created by a store with a budget gets PRAGMA auto_vacuum = INCREMENTAL before the first
-- migration runs (it can only be set on an empty file); any other file is converted by one VACUUM
-- the first time a budget needs it to shrink (see PageStore+Space.swift).
CREATE TABLE feed_use (
    feed_id INTEGER PRIMARY KEY REFERENCES feed (id) ON DELETE CASCADE,
    opened_at INTEGER NOT NULL
) STRICT;
