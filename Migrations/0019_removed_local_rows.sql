-- A removal rolled back (the server rejected it) puts its item's row back. A row the app made up (a
-- local insert, bit 0 of item.flags) is not on the server's pages: pages that skip it prove nothing.
-- Put back as a server row, the next page over its place proved it deleted, and the user's post was
-- lost. The removal keeps whether its row was the app's, and the rollback puts it back as it was.
--
-- pending_edit, new column:
--   removed_local   for a removal, 1 when the item's row was a local row when it was removed (by
--                   the user; a page that lists the item again makes it the server's: 0)
ALTER TABLE pending_edit ADD COLUMN removed_local INTEGER NOT NULL DEFAULT 0;
