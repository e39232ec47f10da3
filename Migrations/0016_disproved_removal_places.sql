-- A page can prove a pending removal's place wrong: it lists the rows the item was removed from and
-- not the item between them (the item moved, or the server deleted it). The removal keeps naming
-- those rows, the best place known for a rollback to show the item again, but an item that comes
-- back anywhere takes its new place instead (a row that comes back outside its old neighbours is
-- otherwise taken to be still between them: a page-numbered list shifts items onto the next page).
--
-- pending_edit, new column:
--   place_disproved   1 once a page proved the item is no longer between above_id and below_id; 0
--                     again when the edit names other rows
ALTER TABLE pending_edit ADD COLUMN place_disproved INTEGER NOT NULL DEFAULT 0;
