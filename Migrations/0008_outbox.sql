-- The outbox: a pending edit made by kind (a like, a post, a deletion) is sent to the server by the
-- handler the app registered for its kind, also after a relaunch, until the server settles it.
-- Pending edits made with a closure (they must not outlive the screen) leave these columns NULL.
-- Every existing row stays as it was: a closure edit.
--
-- pending_edit, new columns:
--   outbox_kind      the kind of edit the app named, whose handler sends it (NULL: a closure edit)
--   argument         the kind's argument, as JSON text, handed to the handler
--   idempotency_key  a UUID made once with the edit and kept across retries and relaunches, for
--                    the server to apply the edit once however often it is sent
--   attempts         how many sends failed and were kept for a retry
--   last_error       what the last failed send said (NULL before one failed)
ALTER TABLE pending_edit ADD COLUMN outbox_kind TEXT;
ALTER TABLE pending_edit ADD COLUMN argument TEXT;
ALTER TABLE pending_edit ADD COLUMN idempotency_key TEXT;
ALTER TABLE pending_edit ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pending_edit ADD COLUMN last_error TEXT;
