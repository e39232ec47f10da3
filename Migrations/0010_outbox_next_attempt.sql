-- The outbox's backoff survives a relaunch: after a failed send, the earliest time the edit may go
-- again is kept with it, so that a store opened before that time waits too (a server that answered
-- Retry-After: 60 is not sent the edit again at once by the next launch). Resuming (connectivity
-- back) still sends at once.
--
-- pending_edit, new column:
--   next_attempt_at  ms since 1970: the earliest time of the next send after a failed one (NULL:
--                    no send failed, or a file from before this migration: at once)
ALTER TABLE pending_edit ADD COLUMN next_attempt_at INTEGER;
