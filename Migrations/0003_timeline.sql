-- Timelines: gaps fillable from either end and gaps the server can no longer fill, and the
-- reader's place in each feed.
--
-- gap.newer_cursor   the newer-side cursor of the rows right below the gap: it fills the gap from
--                    its bottom (Mastodon's min_id). NULL when the server gave none.
-- gap.unfillable     1 when the server answered a fill with nothing between the gap's edges (it no
--                    longer keeps those items): the gap stays, to be shown and dismissed, and is not
--                    fetched again.
ALTER TABLE gap ADD COLUMN newer_cursor TEXT;
ALTER TABLE gap ADD COLUMN unfillable INTEGER NOT NULL DEFAULT 0;

-- reading_position: where the reader was in a feed, restored when the feed opens.
--   item_id     the first row on screen
--   row         its row then, the place to go back to when the item is gone
--   offset      how far the app had scrolled into that row, in the app's units (points)
--   saved_at    ms since 1970
CREATE TABLE reading_position (
    feed_id INTEGER PRIMARY KEY REFERENCES feed (id) ON DELETE CASCADE,
    item_id TEXT NOT NULL,
    row INTEGER NOT NULL,
    offset REAL NOT NULL,
    saved_at INTEGER NOT NULL
) STRICT;
