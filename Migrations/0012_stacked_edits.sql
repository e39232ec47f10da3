-- An item may have several edits made by kind waiting at once (liked, then unliked, while offline):
-- they are sent in order, one at a time, and each keeps the value before it and the value after it.
--
-- SQLite cannot change a primary key in place: the table is built again with `step` in its key, and
-- every existing row (at most one per item) becomes its item's first edit.
--
-- pending_edit, new column:
--   step   the edit's place among its item's pending edits, from 0; an edit made while others wait
--          takes the next. Only edits made by kind stack: an edit made with a closure is alone, an
--          insert can only be first and a removal only last.
--   base   now the value before this edit: the server's for the first, the previous edit's `edited`
--          for the others (a rollback of the first puts the server's back and replays the others on
--          top of it)
--   edited_section   the section of `edited` (the item's section key after the edit): an edit that
--          moved the item to another section keeps it there when it goes again on another value; an
--          existing row takes its base's
CREATE TABLE pending_edit_stacked (
    feed_id INTEGER NOT NULL REFERENCES feed (id) ON DELETE CASCADE,
    item_id TEXT NOT NULL,
    step INTEGER NOT NULL DEFAULT 0,
    kind TEXT NOT NULL,
    base ANY,
    base_section TEXT,
    edited ANY,
    edited_section TEXT,
    above_id TEXT,
    below_id TEXT,
    created_at INTEGER NOT NULL,
    outbox_kind TEXT,
    argument TEXT,
    idempotency_key TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    next_attempt_at INTEGER,
    PRIMARY KEY (feed_id, item_id, step)
) STRICT, WITHOUT ROWID;
INSERT INTO pending_edit_stacked (feed_id, item_id, step, kind, base, base_section, edited, edited_section,
    above_id, below_id, created_at, outbox_kind, argument, idempotency_key, attempts, last_error, next_attempt_at)
SELECT feed_id, item_id, 0, kind, base, base_section, edited, base_section, above_id, below_id, created_at,
    outbox_kind, argument, idempotency_key, attempts, last_error, next_attempt_at
FROM pending_edit;
DROP TABLE pending_edit;
ALTER TABLE pending_edit_stacked RENAME TO pending_edit;
