-- Optimistic local edits whose server call has not answered yet, so that they survive a relaunch,
-- refreshes re-apply them, and pagedb lists them. Independent of every other table but feed.
--
-- pending_edit: one per feed and item at a time.
--   kind           'update', 'insert' or 'remove'
--   base           the server's payload to roll back to (NULL for an insert: rolling back removes it)
--   base_section   its section key
--   edited         the payload shown while the edit is pending (NULL for a remove)
--   above_id, below_id   the ids of the rows around a removed or inserted item: a rollback or a refresh
--                  puts it back between them, and leaves it out when both are gone (the list was
--                  replaced: the server's pages bring it back in order)
--   created_at     ms since 1970
CREATE TABLE pending_edit (
    feed_id INTEGER NOT NULL REFERENCES feed (id) ON DELETE CASCADE,
    item_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    base ANY,
    base_section TEXT,
    edited ANY,
    above_id TEXT,
    below_id TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (feed_id, item_id)
) STRICT, WITHOUT ROWID;
