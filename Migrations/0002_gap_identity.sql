-- Gaps get a stable identity and become places in the feed's order rather than pairs of rows.
--
-- id               a gap keeps it while rows around it are inserted, removed or moved, so its
--                  loading or failed state in a snapshot follows it
-- above_position   the gap sits right below every row whose position is at most this one; it need
--                  not be a row's position any more (the row above a gap may be removed locally,
--                  and the rows the gap stands for must still be fetched)
-- The old below_position is dropped: the rows below a gap are the rows after above_position.
CREATE TABLE gap_v2 (
    id INTEGER PRIMARY KEY,
    feed_id INTEGER NOT NULL REFERENCES feed (id) ON DELETE CASCADE,
    above_position INTEGER NOT NULL,
    cursor TEXT,
    created_at INTEGER NOT NULL,
    UNIQUE (feed_id, above_position)
) STRICT;
INSERT INTO gap_v2 (feed_id, above_position, cursor, created_at)
    SELECT feed_id, above_position, cursor, created_at FROM gap ORDER BY feed_id, above_position;
DROP TABLE gap;
ALTER TABLE gap_v2 RENAME TO gap;
