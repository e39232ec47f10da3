-- Rows the app inserted, told apart from rows a server listed.
--
-- A page that the server returned contiguously (a filled gap, a next page overlapping known rows)
-- proves that the cached server rows it skips were deleted on the server. Rows the app inserted
-- (Feed.insert, an optimistic insert) were never listed by the server, so a page skipping them
-- proves nothing: they stay.
--
-- item.local   1 for a row the app inserted; 0 for a row a server page (or a seed fixture) wrote.
ALTER TABLE item ADD COLUMN local INTEGER NOT NULL DEFAULT 0;
