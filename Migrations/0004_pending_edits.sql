-- Optimistic local edits whose server call has not answered yet, so that they survive a relaunch,
-- refreshes re-apply them, and pagedb lists them. Independent of every other table but feed.
--
-- pending_edit: one per feed and item at a time.
--   kind           'update', 'insert' or 'remove'
--   base           the server's payload to roll back to (NULL for an insert: rolling back removes it)
--   base_section   its section key
--   edited         the payload shown while the edit is pending (NULL for a remove)
--   row_hint       for a remove, the row the item had, to put it back there on a rollback
--   created_at     ms since 1970
CREATE TABLE pending_edit (
    feed_id INTEGER NOT NULL REFERENCES feed (id) ON DELETE CASCADE,
    item_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    base ANY,
    base_section TEXT,
    edited ANY,
    row_hint INTEGER,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (feed_id, item_id)
) STRICT, WITHOUT ROWID;
