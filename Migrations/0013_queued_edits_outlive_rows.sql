-- A queued edit is the user's intent for the server, not a row: it outlives the row it was shown on,
-- and one store at a time sends it.
-- When rows leave without the edit asking (a new cache version clears the feed, a row no longer
-- decodes), the item's edits made by kind stay queued and are still sent, shown on no row; a
-- settlement then has nothing to write back. An edit that really must go (a row no edit can come
-- from, a feed deleted with its edits on request) is kept in the outbox's history of drops.
--
-- An item's edits go one at a time across stores and processes (an app and its share extension
-- both send): a store takes a lease on an edit, in a write transaction, before its handler sends
-- it, and no other store sends the edit while the lease holds. The lease ends with the send's
-- outcome, with its holder's process (a crash), or at its time.
--
-- pending_edit, new columns:
--   detached       1 for an edit whose rows left under it: sent in its item's order as before, never
--                  applied to a row, never rolled back; 0 for every other edit
--   sending_by     who holds the lease: "pid:store" of the store sending it (NULL: nobody)
--   sending_until  ms since 1970: when the lease ends at the latest
--
-- outbox_dropped: the newest queued edits dropped unsent, for `pagedb outbox`.
--   feed_key, item_id     where the edit was made
--   outbox_kind, argument, idempotency_key   as the edit had them (the key as written: it may be
--                         what made the row unreadable)
--   reason                why it was dropped, as a phrase
--   dropped_at            ms since 1970
ALTER TABLE pending_edit ADD COLUMN detached INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pending_edit ADD COLUMN sending_by TEXT;
ALTER TABLE pending_edit ADD COLUMN sending_until INTEGER;

CREATE TABLE outbox_dropped (
    seq INTEGER PRIMARY KEY,
    feed_key TEXT NOT NULL,
    item_id TEXT NOT NULL,
    outbox_kind TEXT,
    argument TEXT,
    idempotency_key TEXT,
    reason TEXT NOT NULL,
    dropped_at INTEGER NOT NULL
) STRICT;
