-- The page store: feeds, the pages fetched for them, their items, and gap markers.
--
-- Comments stay outside the CREATE statements: SQLite keeps each statement's text in sqlite_schema
-- and parses it again on every open, so text inside them costs every cold start.

-- Marks the file as PagedStore's, so that another program's SQLite file is never migrated by mistake.
PRAGMA application_id = 1346851668; -- 'PGST'

-- feed: one paginated list, keyed by the app's string ('home', 'search?q=swift'). Counters and the
-- positions of the top and bottom rows live here so that no operation needs to count or scan items.
--   newest_cursor    the newer-side cursor returned with the top page
--   oldest_cursor    the older-side cursor of the bottom page: where the next page starts
--   end_reached      the server said there are no older items
--   top_position, bottom_position   NULL while the feed has no rows
--   last_refresh_at  ms since 1970 of the last committed first page
--   last_error       the last failed fetch, for pagedb; cleared by a success
--   generation       bumped by every refresh: responses fetched under an older one are dropped
--   loaded           a first page was committed at least once
--   has_sections     some row has a section key
--   policy           the app's FeedPolicy as JSON, for pagedb show
CREATE TABLE feed (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    newest_cursor TEXT,
    oldest_cursor TEXT,
    end_reached INTEGER NOT NULL DEFAULT 0,
    row_count INTEGER NOT NULL DEFAULT 0,
    top_position INTEGER,
    bottom_position INTEGER,
    last_refresh_at INTEGER,
    last_error TEXT,
    generation INTEGER NOT NULL DEFAULT 0,
    loaded INTEGER NOT NULL DEFAULT 0,
    has_sections INTEGER NOT NULL DEFAULT 0,
    policy TEXT
) STRICT;

-- page: one server response, in display order; page_no grows downwards (pages added on top get
-- smaller numbers).
--   request          'first', 'older', 'newer', 'seed' or 'local'
--   request_cursor   the cursor the page was asked with
--   older_cursor, newer_cursor   the cursors the server returned with it
--   fetched_at       ms since 1970
--   row_count        rows of the feed that belong to this page now
CREATE TABLE page (
    feed_id INTEGER NOT NULL REFERENCES feed (id) ON DELETE CASCADE,
    page_no INTEGER NOT NULL,
    request TEXT NOT NULL,
    request_cursor TEXT,
    older_cursor TEXT,
    newer_cursor TEXT,
    fetched_at INTEGER NOT NULL,
    row_count INTEGER NOT NULL,
    PRIMARY KEY (feed_id, page_no)
) STRICT, WITHOUT ROWID;

-- item: one row of a feed. position orders the feed (smaller is nearer the top) and is unique in the
-- feed, so a window is a keyset range. payload is TEXT for the JSON codec (readable with sqlite3) or
-- BLOB for binary codecs. No foreign key to feed: the store deletes a feed's items itself, in the
-- same transaction, and a per-row parent lookup would cost every insert.
CREATE TABLE item (
    feed_id INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    page_no INTEGER NOT NULL,
    section TEXT,
    payload ANY NOT NULL,
    PRIMARY KEY (feed_id, item_id)
) STRICT;
CREATE UNIQUE INDEX item_by_position ON item (feed_id, position);

-- gap: items missing between two rows (a refresh that did not reach the cached rows, with the
-- keepGap policy). above_position and below_position are the rows around it; cursor is the
-- older-side cursor that fills it from its top.
CREATE TABLE gap (
    feed_id INTEGER NOT NULL REFERENCES feed (id) ON DELETE CASCADE,
    above_position INTEGER NOT NULL,
    below_position INTEGER NOT NULL,
    cursor TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (feed_id, above_position)
) STRICT, WITHOUT ROWID;
