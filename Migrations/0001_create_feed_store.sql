-- The page store: feeds, the pages fetched for them, their items, and gap markers.
-- Marks the file as PagedStore's, so that another program's SQLite file is never migrated by mistake.
PRAGMA application_id = 1346851668; -- 'PGST'

-- One paginated list, keyed by the app's string ('home', 'search?q=swift').
-- Counters and the positions of the top and bottom rows are kept here so that no operation needs to
-- count or scan a feed's items.
CREATE TABLE feed (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    newest_cursor TEXT,                     -- newer-side cursor returned with the top page
    oldest_cursor TEXT,                     -- older-side cursor of the bottom page: where the next page starts
    end_reached INTEGER NOT NULL DEFAULT 0, -- the server said there are no older items
    row_count INTEGER NOT NULL DEFAULT 0,
    top_position INTEGER,                   -- NULL while the feed has no rows
    bottom_position INTEGER,
    last_refresh_at INTEGER,                -- ms since 1970 of the last committed first page
    last_error TEXT,                        -- the last failed fetch, for pagedb; cleared by a success
    generation INTEGER NOT NULL DEFAULT 0,  -- bumped by every refresh: older responses are dropped
    loaded INTEGER NOT NULL DEFAULT 0,      -- a first page was committed at least once
    has_sections INTEGER NOT NULL DEFAULT 0,-- some row has a section key
    policy TEXT                             -- the app's FeedPolicy as JSON, for pagedb show
) STRICT;

-- One server response, in display order: page_no grows downwards (pages added on top get smaller numbers).
CREATE TABLE page (
    feed_id INTEGER NOT NULL REFERENCES feed (id) ON DELETE CASCADE,
    page_no INTEGER NOT NULL,
    request TEXT NOT NULL,        -- 'first', 'older', 'newer', 'seed' or 'local'
    request_cursor TEXT,          -- the cursor the page was asked with
    older_cursor TEXT,            -- the cursors the server returned with it
    newer_cursor TEXT,
    fetched_at INTEGER NOT NULL,  -- ms since 1970
    row_count INTEGER NOT NULL,   -- rows of the feed that belong to this page now
    PRIMARY KEY (feed_id, page_no)
) STRICT, WITHOUT ROWID;

-- One row of a feed. position orders the feed (smaller is nearer the top) and is unique in the feed,
-- so a window is a keyset range. No foreign key to feed: the store deletes a feed's items itself, in
-- the same transaction, and a per-row parent lookup would cost every insert.
CREATE TABLE item (
    feed_id INTEGER NOT NULL,
    item_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    page_no INTEGER NOT NULL,
    section TEXT,
    payload ANY NOT NULL,  -- TEXT for the JSON codec (readable with sqlite3), BLOB for binary codecs
    PRIMARY KEY (feed_id, item_id)
) STRICT;
CREATE UNIQUE INDEX item_by_position ON item (feed_id, position);

-- Missing items between two rows (a refresh that did not reach the cached rows, with the keepGap policy).
CREATE TABLE gap (
    feed_id INTEGER NOT NULL REFERENCES feed (id) ON DELETE CASCADE,
    above_position INTEGER NOT NULL, -- the row just above the gap
    below_position INTEGER NOT NULL, -- the row just below it
    cursor TEXT,                     -- the older-side cursor that fills the gap from its top
    created_at INTEGER NOT NULL,
    PRIMARY KEY (feed_id, above_position)
) STRICT, WITHOUT ROWID;
